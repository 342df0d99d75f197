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

package jsonschema

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
)

func ptr[T any](v T) *T { return &v }

// bound is a bound written as a string, as Stencil's first templates wrote them.
func bound(text string) *templates.Bound { return ptr(templates.NewBound(text)) }

// TestForParameter checks the keywords written for each kind of parameter.
func TestForParameter(t *testing.T) {
	cases := []struct {
		name string
		p    templates.Parameter
		want string
	}{
		{"plain string", templates.Parameter{Name: "A", DisplayName: "A thing", Description: "Says a", Value: "x"},
			`{"type":"string","title":"A thing","description":"Says a","default":"x","x-stencil-type":"string"}`},
		{"constraints", templates.Parameter{Name: "A", Enum: []string{"web", "db"}, Pattern: "^[a-z]+$", MinLength: ptr(int64(2)), MaxLength: ptr(int64(5)), Multiline: true},
			`{"type":"string","enum":["web","db"],"pattern":"^[a-z]+$","minLength":2,"maxLength":5,"x-stencil-multiline":true,"x-stencil-type":"string"}`},
		{"int with leading zeros", templates.Parameter{Name: "N", Type: "int", Value: "007", Minimum: bound("01"), Maximum: bound("10"), Enum: []string{"7", "08"}},
			`{"type":"integer","default":7,"enum":[7,8],"minimum":1,"maximum":10,"x-stencil-type":"int"}`},
		{"number", templates.Parameter{Name: "F", Type: "number", Value: "0.50", Minimum: bound("-1e3")},
			`{"type":"number","default":0.50,"minimum":-1e3,"x-stencil-type":"number"}`},
		{"bool", templates.Parameter{Name: "B", Type: "bool", Value: "true"}, `{"type":"boolean","default":true,"x-stencil-type":"bool"}`},
		{"base64", templates.Parameter{Name: "C", Type: "base64", Value: "aGk="},
			`{"type":"string","default":"aGk=","contentEncoding":"base64","x-stencil-type":"base64"}`},
		{"secret keeps its default out", templates.Parameter{Name: "S", Secret: true, Value: "hunter2", Generate: "expression", From: "[a-z]{8}"},
			`{"type":"string","writeOnly":true,"x-stencil-secret":true,"x-stencil-generated":"[a-z]{8}","x-stencil-type":"string"}`},
		{"required refuses empty", templates.Parameter{Name: "R", Required: true, Value: "x"},
			`{"type":"string","default":"x","minLength":1,"x-stencil-type":"string"}`},
		{"required generated may be empty", templates.Parameter{Name: "R", Required: true, Generate: "expression", From: "[a-z]{3}"},
			`{"type":"string","x-stencil-generated":"[a-z]{3}","x-stencil-type":"string"}`},
		{"json of any shape", templates.Parameter{Name: "J", Type: "json", Value: `{ "a" : [1, 2] }`}, `{"default":{"a":[1,2]},"x-stencil-type":"json"}`},
		{"json items", templates.Parameter{Name: "Z", Type: "json", Items: &templates.JSONValueSchema{Type: "string", Pattern: "^[a-z]+-[0-9]$"}, MaxItems: ptr(int64(3))},
			`{"type":"array","items":{"type":"string","pattern":"^[a-z]+-[0-9]$"},"maxItems":3,"x-stencil-type":"json"}`},
		{"json properties in name order", templates.Parameter{Name: "O", Type: "json", Properties: map[string]templates.JSONValueSchema{
			"port": {Type: "int", Maximum: bound("65535")}, "host": {Type: "string", MinLength: ptr(int64(1))}, "on": {Type: "bool"}, "any": {Type: "json"}}},
			`{"type":"object","properties":{"any":{},"host":{"type":"string","minLength":1},"on":{"type":"boolean"},"port":{"type":"integer","maximum":65535}},"x-stencil-type":"json"}`},
		{"a default of the wrong type stays text", templates.Parameter{Name: "N", Type: "int", Value: "many", Minimum: bound("x")},
			`{"type":"integer","default":"many","x-stencil-type":"int"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(forParameter(&tc.p))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestForTemplate checks the document around the parameters: title, description, the
// parameters in their order, required and additionalProperties.
func TestForTemplate(t *testing.T) {
	tmpl := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "redis"}, Parameters: []templates.Parameter{
		{Name: "Z", Required: true}, {Name: "A", Required: true, Value: "a"}, {Name: "M", Required: true, Generate: "expression", From: "x"}, {Name: "O"},
	}}
	got, err := json.Marshal(ForTemplate(tmpl))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"redis","type":"object","properties":{` +
		`"Z":{"type":"string","minLength":1,"x-stencil-type":"string"},"A":{"type":"string","default":"a","minLength":1,"x-stencil-type":"string"},` +
		`"M":{"type":"string","x-stencil-generated":"x","x-stencil-type":"string"},"O":{"type":"string","x-stencil-type":"string"}},` +
		`"required":["Z"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	tmpl.Annotations = map[string]string{DisplayNameAnnotation: "Redis", DescriptionAnnotation: "A cache"}
	tmpl.Parameters = nil
	got, _ = json.Marshal(ForTemplate(tmpl))
	want = `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Redis","description":"A cache","type":"object","properties":{},"required":[],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestKeywordsListsStencilsOwn checks that Keywords, which users declare to strict
// validators, names every keyword of Schema that is not JSON Schema's, and that
// docs/parameters.md shows them.
func TestKeywordsListsStencilsOwn(t *testing.T) {
	var own []string
	st := reflect.TypeOf(Schema{})
	for i := 0; i < st.NumField(); i++ {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if strings.HasPrefix(name, "x-") {
			own = append(own, name)
		}
	}
	if !reflect.DeepEqual(own, Keywords) {
		t.Errorf("Schema's own keywords %v, Keywords %v", own, Keywords)
	}
	doc, err := os.ReadFile("../../../docs/parameters.md")
	if err != nil {
		t.Fatal(err)
	}
	if declared := `keywords: ["` + strings.Join(Keywords, `", "`) + `"]`; !strings.Contains(string(doc), declared) {
		t.Errorf("docs/parameters.md does not show ajv the keywords as %s", declared)
	}
}
