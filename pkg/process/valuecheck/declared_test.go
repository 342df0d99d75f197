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

package valuecheck

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// bound is a bound written as a string, as Stencil's first templates wrote them.
func bound(text string) *templates.Bound { return new(templates.NewBound(text)) }

// TestDeclared checks the values a parameter's constraints hold, its default and its enum's
// words, against the constraints that are valid, beside validation's own errors, each once.
// (validation's TestValidateParameterConstraints has the cases of the constraints alone.)
func TestDeclared(t *testing.T) {
	cases := []struct {
		name string
		p    templates.Parameter
		want []string
	}{
		{name: "every string constraint kept", p: templates.Parameter{Type: "string", Value: "web-1", Enum: []string{"web-1", "db-2"},
			Pattern: `^[a-z]+-\d$`, MinLength: new(int64(3)), MaxLength: new(int64(5)), Multiline: true, Secret: true}},
		{name: "numbers kept", p: templates.Parameter{Type: "number", Value: "2.5", Enum: []string{"2.5", "1e1"}, Minimum: bound("-0.5"), Maximum: bound("10")}},
		{name: "big int bounds", p: templates.Parameter{Type: "int", Value: "123456789012345678901", Minimum: bound("123456789012345678900"), Maximum: bound("123456789012345678901")}},
		{name: "default with too many items", p: templates.Parameter{Type: "json", Value: "[1,2,3]", Items: &templates.JSONValueSchema{Type: "int"}, MaxItems: new(int64(2))},
			want: []string{"p.value: FieldValueInvalid"}},
		{name: "maxItems kept", p: templates.Parameter{Type: "json", Value: "[1,2]", Items: &templates.JSONValueSchema{Type: "int"}, MaxItems: new(int64(2))}},
		{name: "default outside the range", p: templates.Parameter{Type: "int", Value: "11", Minimum: bound("1"), Maximum: bound("10")}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "default not in the enum", p: templates.Parameter{Value: "c", Enum: []string{"a", "b"}}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "int default in the enum by value", p: templates.Parameter{Type: "int", Value: "03", Enum: []string{"3"}}},
		{name: "default breaks the pattern", p: templates.Parameter{Value: "ABC", Pattern: "^[a-z]+$"}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "unanchored pattern matches anywhere", p: templates.Parameter{Value: "ABc", Pattern: "[a-z]"}},
		{name: "default too long", p: templates.Parameter{Value: "héllo", MaxLength: new(int64(4))}, want: []string{"p.value: FieldValueInvalid"}},
		{name: "default counted in characters", p: templates.Parameter{Value: "héllo", MaxLength: new(int64(5))}},
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
		{name: "json default breaking items", p: templates.Parameter{Type: "json", Value: `[1,"2",30]`, Items: &templates.JSONValueSchema{Type: "int", Maximum: bound("10")}},
			want: []string{"p.value: FieldValueInvalid"}},
		{name: "json default not an object", p: templates.Parameter{Type: "json", Value: `[]`, Properties: map[string]templates.JSONValueSchema{"a": {Type: "int"}}},
			want: []string{"p.value: FieldValueInvalid"}},
		{name: "every problem at once", p: templates.Parameter{Type: "int", Value: "0", Pattern: "(", Minimum: bound("5"), Maximum: bound("1"), Enum: []string{"b"}},
			want: []string{"p.enum[0]: FieldValueInvalid", "p.minimum: FieldValueInvalid", "p.pattern: FieldValueForbidden", "p.value: FieldValueInvalid"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Declared(&tc.p, field.NewPath("p")) {
				got = append(got, e.Field+": "+string(e.Type))
			}
			if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(tc.want))) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSecretDefaultStaysOutOfErrors(t *testing.T) {
	p := templates.Parameter{Value: "hunter2", MinLength: new(int64(12)), Secret: true}
	errs := Declared(&p, field.NewPath("p"))
	if len(errs) != 1 || strings.Contains(errs.ToAggregate().Error(), "hunter2") {
		t.Errorf("want one error without the value, got %v", errs)
	}
}
