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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

func ptr[T any](v T) *T { return &v }

// bound is a bound written as a string, as Stencil's first templates wrote them.
func bound(text string) *templates.Bound { return ptr(templates.NewBound(text)) }

func TestValidateParameterConstraints(t *testing.T) {
	cases := []struct {
		name string
		p    templates.Parameter
		want []string
	}{
		{name: "none", p: templates.Parameter{Name: "A"}},
		{name: "every string constraint kept", p: templates.Parameter{Type: "string", Value: "web-1", Enum: []string{"web-1", "db-2"},
			Pattern: `^[a-z]+-\d$`, MinLength: ptr(int64(3)), MaxLength: ptr(int64(5)), Multiline: true, Secret: true}},
		{name: "numbers kept", p: templates.Parameter{Type: "number", Value: "2.5", Enum: []string{"2.5", "1e1"}, Minimum: bound("-0.5"), Maximum: bound("10")}},
		{name: "big int bounds", p: templates.Parameter{Type: "int", Value: "123456789012345678901", Minimum: bound("123456789012345678900"), Maximum: bound("123456789012345678901")}},
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
		{name: "default with too many items", p: templates.Parameter{Type: "json", Value: "[1,2,3]", Items: &templates.JSONValueSchema{Type: "int"}, MaxItems: ptr(int64(2))},
			want: []string{"p.value: FieldValueInvalid"}},
		{name: "maxItems kept", p: templates.Parameter{Type: "json", Value: "[1,2]", Items: &templates.JSONValueSchema{Type: "int"}, MaxItems: ptr(int64(2))}},

		{name: "default outside the range", p: templates.Parameter{Type: "int", Value: "11", Minimum: bound("1"), Maximum: bound("10")}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "default not in the enum", p: templates.Parameter{Value: "c", Enum: []string{"a", "b"}}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "int default in the enum by value", p: templates.Parameter{Type: "int", Value: "03", Enum: []string{"3"}}},
		{name: "default breaks the pattern", p: templates.Parameter{Value: "ABC", Pattern: "^[a-z]+$"}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "unanchored pattern matches anywhere", p: templates.Parameter{Value: "ABc", Pattern: "[a-z]"}},
		{name: "default too long", p: templates.Parameter{Value: "héllo", MaxLength: ptr(int64(4))}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "default counted in characters", p: templates.Parameter{Value: "héllo", MaxLength: ptr(int64(5))}},
		{name: "enum word of the wrong type", p: templates.Parameter{Type: "int", Enum: []string{"1", "two", "1.5"}},
			want: []string{"p.enum[1]: FieldValueInvalid", "p.enum[2]: FieldValueInvalid"}},
		{name: "enum word breaking the constraints", p: templates.Parameter{Type: "number", Enum: []string{"0.5", "20"}, Maximum: bound("10")},
			want: []string{"p.enum[1]: FieldValueInvalid"}},
		{name: "enum word empty or repeated", p: templates.Parameter{Enum: []string{"a", "", "a"}},
			want: []string{"p.enum[1]: FieldValueInvalid", "p.enum[2]: FieldValueDuplicate"}},
		{name: "a broken bound is reported once", p: templates.Parameter{Type: "int", Value: "5", Minimum: bound("x")}, want: []string{"p.minimum: FieldValueInvalid"}},
		{name: "a default of the wrong type is the engine's", p: templates.Parameter{Type: "int", Value: "x", Minimum: bound("1")}},
		{name: "json items", p: templates.Parameter{Type: "json", Value: `[1,2]`, Items: &templates.JSONValueSchema{Type: "int", Minimum: bound("1"), Enum: []string{"1", "2", "3"}}}},
		{name: "json properties", p: templates.Parameter{Type: "json", Value: `{"port":80,"host":"a.b","x":[]}`, Properties: map[string]templates.JSONValueSchema{
			"port": {Type: "int", Maximum: bound("65535")}, "host": {Type: "string", Pattern: `^[a-z.]+$`}, "tls": {Type: "bool"}, "any": {Type: "json"}}}},
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
		{name: "json default breaking items", p: templates.Parameter{Type: "json", Value: `[1,"2",30]`, Items: &templates.JSONValueSchema{Type: "int", Maximum: bound("10")}},
			want: []string{"p.value: FieldValueInvalid"}},
		{name: "json default not an object", p: templates.Parameter{Type: "json", Value: `[]`, Properties: map[string]templates.JSONValueSchema{"a": {Type: "int"}}},
			want: []string{"p.value: FieldValueInvalid"}},
		{name: "every problem at once", p: templates.Parameter{Type: "int", Value: "0", Pattern: "(", Minimum: bound("5"), Maximum: bound("1"), Enum: []string{"b"}},
			want: []string{"p.enum[0]: FieldValueInvalid", "p.minimum: FieldValueInvalid", "p.pattern: FieldValueForbidden", "p.value: FieldValueInvalid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateParameterConstraints(&tc.p, field.NewPath("p"))
			checkCauses(t, errs, tc.want)
		})
	}
}

func TestSecretDefaultStaysOutOfErrors(t *testing.T) {
	p := templates.Parameter{Value: "hunter2", MinLength: ptr(int64(12)), Secret: true}
	errs := ValidateParameterConstraints(&p, field.NewPath("p"))
	if len(errs) != 1 || strings.Contains(errs.ToAggregate().Error(), "hunter2") {
		t.Errorf("want one error without the value, got %v", errs)
	}
}
