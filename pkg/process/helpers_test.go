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

package process

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// stencilTemplate wraps parameters and objects (JSON) into one of our Templates.
func stencilTemplate(parameters, objects string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},` +
		`"parameters":` + parameters + `,"objects":` + objects + `}`
}

// openShiftTemplateJSON wraps parameters and objects (JSON) into an OpenShift Template.
func openShiftTemplateJSON(parameters, objects string) string {
	return `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"t"},` +
		`"parameters":` + parameters + `,"objects":` + objects + `}`
}

// processCase decodes, compiles and executes a template through both the fast path and the
// slow path, checks they agree, and returns the result.
func processCase(t *testing.T, template string, req Request) (*Result, field.ErrorList) {
	t.Helper()
	tmpl, dialect, err := DecodeTemplate([]byte(template))
	if err != nil {
		t.Fatalf("DecodeTemplate: %v", err)
	}
	plan, errs := Compile(tmpl, dialect)
	if len(errs) > 0 {
		return nil, errs
	}
	compare := req.Generator == nil
	if compare {
		req.Generator = NewSeededGenerator(1)
	}
	fast, errs := plan.Execute(req)

	c := newCompiler(tmpl, dialect, nil)
	c.forceSlow = true
	c.compileText()
	if len(tmpl.Rules) > 0 {
		c.compileRules()
	}
	c.plan.objects = c.compileObjects(nil, tmpl.Objects, "objects", true)
	if len(c.errs) > 0 {
		t.Fatalf("slow compile failed where the fast one did not: %v", c.errs)
	}
	slowReq := req
	slowReq.Generator = NewSeededGenerator(1)
	slow, slowErrs := c.plan.Execute(slowReq)
	if (len(errs) == 0) != (len(slowErrs) == 0) {
		t.Fatalf("fast errors %v, slow errors %v", errs, slowErrs)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	for _, o := range fast.Objects {
		if !jsontext.Value(o).IsValid() {
			t.Fatalf("invalid JSON object: %s", o)
		}
	}
	if !jsontext.Value(ListBytes(fast.Objects)).IsValid() {
		t.Fatalf("invalid JSON list: %s", ListBytes(fast.Objects))
	}
	if compare {
		if got, want := string(ListBytes(fast.Objects)), string(ListBytes(slow.Objects)); got != want {
			t.Fatalf("fast and slow paths differ:\nfast %s\nslow %s", got, want)
		}
	}
	return fast, nil
}

// objectsOf returns the result's objects, one per line.
func objectsOf(r *Result) string {
	parts := make([]string, len(r.Objects))
	for i, o := range r.Objects {
		parts[i] = string(o)
	}
	return strings.Join(parts, "\n")
}

// errorsContain checks that every wanted text appears in the error list.
func errorsContain(t *testing.T, errs field.ErrorList, want ...string) {
	t.Helper()
	got := errs.ToAggregate()
	if got == nil {
		t.Fatalf("no errors, want %q", want)
	}
	for _, w := range want {
		if !strings.Contains(got.Error(), w) {
			t.Errorf("errors %q do not contain %q", got.Error(), w)
		}
	}
}
