/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package validation

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

func ptr[T any](v T) *T { return &v }

// bound is a bound written as a string, as Stencil's first templates wrote them.
func bound(text string) *templates.Bound { return ptr(templates.NewBound(text)) }

// TestValidateParameterConstraints checks the constraints against themselves and their type;
// the values they judge (the default, the enum's words) are pkg/process/valuecheck's, whose
// TestDeclared has those cases.
func TestValidateParameterConstraints(t *testing.T) {
	cases := []struct {
		name string
		p    templates.Parameter
		want []string
	}{
		{name: "none", p: templates.Parameter{Name: "A"}},
		{name: "equal bounds", p: templates.Parameter{Type: "int", Minimum: bound("3"), Maximum: bound("3"), MinLength: nil}},
		{name: "pattern does not compile", p: templates.Parameter{Pattern: "a(b"}, want: []string{"p.pattern: FieldValueInvalid"}},
		{name: "lookahead is not RE2", p: templates.Parameter{Pattern: "(?=a)"}, want: []string{"p.pattern: FieldValueInvalid"}},
		{name: "minimum above maximum", p: templates.Parameter{Type: "int", Minimum: bound("10"), Maximum: bound("9")}, want: []string{"p.minimum: FieldValueInvalid"}},
		{name: "decimal minimum above maximum", p: templates.Parameter{Type: "number", Minimum: bound("0.31"), Maximum: bound("0.3")}, want: []string{"p.minimum: FieldValueInvalid"}},
		{name: "bound not a number", p: templates.Parameter{Type: "number", Minimum: bound("1Gi"), Maximum: bound("")}, want: []string{"p.maximum: FieldValueInvalid", "p.minimum: FieldValueInvalid"}},
		{name: "minLength above maxLength", p: templates.Parameter{MinLength: ptr(int64(4)), MaxLength: ptr(int64(3))}, want: []string{"p.minLength: FieldValueInvalid"}},
		{name: "negative length", p: templates.Parameter{MaxLength: ptr(int64(-1))}, want: []string{"p.maxLength: FieldValueInvalid"}},
		{name: "minimum on a string", p: templates.Parameter{Minimum: bound("1")}, want: []string{"p.minimum: FieldValueForbidden"}},
		{name: "pattern on an int", p: templates.Parameter{Type: "int", Pattern: "^1"}, want: []string{"p.pattern: FieldValueForbidden"}},
		{name: "lengths on a bool", p: templates.Parameter{Type: "bool", MinLength: ptr(int64(1)), MaxLength: ptr(int64(2))},
			want: []string{"p.maxLength: FieldValueForbidden", "p.minLength: FieldValueForbidden"}},
		{name: "enum on json", p: templates.Parameter{Type: "json", Enum: []string{"1"}}, want: []string{"p.enum: FieldValueForbidden"}},
		{name: "pattern on base64", p: templates.Parameter{Type: "base64", Pattern: "a"}, want: []string{"p.pattern: FieldValueForbidden"}},
		{name: "maxItems without items", p: templates.Parameter{Type: "json", MaxItems: ptr(int64(3))}, want: []string{"p.maxItems: FieldValueForbidden"}},
		{name: "negative maxItems", p: templates.Parameter{Type: "json", Items: &templates.JSONValueSchema{Type: "int"}, MaxItems: ptr(int64(-1))},
			want: []string{"p.maxItems: FieldValueInvalid"}},
		{name: "items on a string", p: templates.Parameter{Items: &templates.JSONValueSchema{Type: "int"}}, want: []string{"p.items: FieldValueForbidden"}},
		{name: "properties on an int", p: templates.Parameter{Type: "int", Properties: map[string]templates.JSONValueSchema{"a": {Type: "int"}}},
			want: []string{"p.properties: FieldValueForbidden"}},
		{name: "items and properties", p: templates.Parameter{Type: "json", Items: &templates.JSONValueSchema{Type: "int"}, Properties: map[string]templates.JSONValueSchema{"a": {Type: "int"}}},
			want: []string{"p.properties: FieldValueForbidden"}},
		{name: "element type missing or unknown", p: templates.Parameter{Type: "json", Properties: map[string]templates.JSONValueSchema{"a": {}, "b": {Type: "base64"}}},
			want: []string{"p.properties[a].type: FieldValueRequired", "p.properties[b].type: FieldValueNotSupported"}},
		{name: "element constraints checked", p: templates.Parameter{Type: "json", Items: &templates.JSONValueSchema{Type: "string", Pattern: "(", Minimum: bound("1"), Enum: []string{"a", "a"}}},
			want: []string{"p.items.enum[1]: FieldValueDuplicate", "p.items.minimum: FieldValueForbidden", "p.items.pattern: FieldValueInvalid"}},
		{name: "a json element takes no constraints", p: templates.Parameter{Type: "json", Items: &templates.JSONValueSchema{Type: "json", MaxLength: ptr(int64(1))}},
			want: []string{"p.items.maxLength: FieldValueForbidden"}},
		{name: "enum word repeated", p: templates.Parameter{Enum: []string{"a", "b", "a"}}, want: []string{"p.enum[2]: FieldValueDuplicate"}},
		{name: "values are the engine's", p: templates.Parameter{Type: "int", Value: "11", Enum: []string{"x", ""}, Maximum: bound("10")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := ValidateParameterConstraints(&tc.p, field.NewPath("p"))
			checkCauses(t, errs, tc.want)
		})
	}
}

// TestValidConstraintsAreReturned checks that the constraints handed on to the engine's checks
// of values are the valid ones, the type defaulted, so that a broken constraint judges no
// value and its mistake is reported once.
func TestValidConstraintsAreReturned(t *testing.T) {
	p := templates.Parameter{Value: "x", Enum: []string{"a", "a"}, Pattern: "(", MinLength: ptr(int64(3)), MaxLength: ptr(int64(2)),
		Minimum: bound("1")}
	valid, errs := ValidateParameterConstraints(&p, field.NewPath("p"))
	checkCauses(t, errs, []string{"p.enum[1]: FieldValueDuplicate", "p.minLength: FieldValueInvalid", "p.minimum: FieldValueForbidden", "p.pattern: FieldValueInvalid"})
	want := templates.Parameter{Type: templates.ParameterTypeString, Enum: []string{"a", "a"}}
	if !reflect.DeepEqual(valid, want) {
		t.Errorf("valid constraints %+v, want %+v", valid, want)
	}

	items := templates.Parameter{Type: "json", Items: &templates.JSONValueSchema{Type: "int", Maximum: bound("3"), Pattern: "a"}, MaxItems: ptr(int64(2)),
		Properties: map[string]templates.JSONValueSchema{"a": {Type: "int"}}}
	valid, _ = ValidateParameterConstraints(&items, field.NewPath("p"))
	want = templates.Parameter{Type: "json", Items: &templates.JSONValueSchema{Type: "int", Maximum: bound("3")}, MaxItems: ptr(int64(2))}
	if !reflect.DeepEqual(valid, want) {
		t.Errorf("valid constraints %+v, want %+v", valid, want)
	}
}
