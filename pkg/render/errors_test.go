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

package render

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/process"
)

// manyProblems is a template given in a request with problems of every step: compile
// (undeclared reference, bad generator), values (missing required, wrong type, undeclared
// caller value) and transformer configs (unknown kind, a patch with no target).
func manyProblems() (*templates.Template, process.Request) {
	t := &templates.Template{
		Parameters: []templates.Parameter{
			{Name: "NAME", Required: true},
			{Name: "COUNT", Type: templates.ParameterTypeInt},
			{Name: "TOKEN", Generate: templates.GeneratorExpression, From: "[a-z"},
		},
		Objects: raw(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"count":"${COUNT}"}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"x":"${UNDECLARED}"}}`,
		),
		Transformers: raw(
			`{"apiVersion":"builtin","kind":"NoSuchTransformer"}`,
			`{"apiVersion":"builtin","kind":"PatchTransformer","target":{"kind":"Deployment"}}`,
		),
	}
	req := process.Request{Parameters: map[string]string{"COUNT": "abc", "EXTRA": "x"}}
	return t, req
}

// TestAllErrorsAtOnce sends one request with problems of every kind and checks that one
// answer names every one of them, ordered by field path.
func TestAllErrorsAtOnce(t *testing.T) {
	tmpl, req := manyProblems()
	_, errs, err := NewRenderer(Options{}).Render(context.Background(), Input{Template: tmpl, Request: req})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		field string
		typ   field.ErrorType
		text  string
	}{
		{"objects[1].stringData.x", field.ErrorTypeInvalid, "UNDECLARED is not a declared parameter"},
		{"parameters[0]", field.ErrorTypeRequired, "NAME is required"},
		{"parameters[1]", field.ErrorTypeInvalid, "must be an integer"},
		{"parameters[2].from", field.ErrorTypeInvalid, ""},
		{"parameters[EXTRA]", field.ErrorTypeInvalid, "declares no such parameter"},
		{"transformers[0]", field.ErrorTypeNotSupported, ""},
		{"transformers[1].patch", field.ErrorTypeRequired, ""},
	}
	for _, w := range want {
		found := false
		for _, e := range errs {
			if strings.HasPrefix(e.Field, w.field) && e.Type == w.typ && strings.Contains(e.Error(), w.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s error at %s containing %q in:\n%v", w.typ, w.field, w.text, errs.ToAggregate())
		}
	}
	for i := 1; i < len(errs); i++ {
		if sorted := validation.SortByField(append(field.ErrorList(nil), errs...)); sorted[i].Field != errs[i].Field {
			t.Errorf("errors not ordered by field path: %s before %s", errs[i-1].Field, errs[i].Field)
		}
	}
}

// TestValueAndConfigErrorsTogether covers a template that compiles: the problems of the
// values and of the transformer configs still come in one answer.
func TestValueAndConfigErrorsTogether(t *testing.T) {
	tmpl, req := manyProblems()
	tmpl.Parameters[2].From = "[a-z]{4}"
	tmpl.Objects = tmpl.Objects[:1]
	_, errs, _ := NewRenderer(Options{}).Render(context.Background(), Input{Template: tmpl, Request: req})
	got := map[string]bool{}
	for _, e := range errs {
		got[e.Field] = true
	}
	for _, f := range []string{"parameters[0]", "parameters[1]", "parameters[EXTRA]", "transformers[0].kind", "transformers[1].patch"} {
		if !got[f] && !got[strings.TrimSuffix(f, ".kind")] {
			t.Errorf("missing a problem at %s in %v", f, errs.ToAggregate())
		}
	}
}
