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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// lenientCases are the six kinds of template OpenShift processes and Stencil's own dialect
// refuses or renders differently, one small template each (testdata/openshift-lenient).
var lenientCases = []struct {
	file   string
	values map[string]string
}{
	{"1-duplicate-parameters.yaml", map[string]string{"MEMORY_LIMIT": "2Gi", "NAME": "web"}},
	{"2-duplicate-members.json", nil},
	{"3-invalid-labels.yaml", nil},
	{"4-typed-in-labels-and-message.yaml", nil},
	{"5-empty-first-document.yaml", nil},
	{"6-namespace.yaml", nil},
}

// lenientGolden is a golden file of testdata/openshift-lenient.
type lenientGolden struct {
	// OpenShift is what OpenShift's own processor (library-go's templateprocessing, with
	// oc's way of setting values) answers for the template and the values; it is the oracle,
	// written from library-go's output and never by -update.
	OpenShift lenientAnswer `json:"openshift"`
	// Warnings are what Stencil says it tolerated.
	Warnings []string `json:"warnings"`
	// Stencil is the answer of our own dialect for the same input, apiVersion and label field
	// spelled as ours: its errors, or its objects.
	Stencil lenientAnswer `json:"stencil"`
}

type lenientAnswer struct {
	Errors     []string          `json:"errors,omitempty"`
	Objects    []json.RawMessage `json:"objects,omitempty"`
	Parameters []goldenParam     `json:"parameters,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Message    string            `json:"message,omitempty"`
}

// answer processes data as the stencil CLI does with --local.
func lenientAnswerOf(t *testing.T, data []byte, values map[string]string) (lenientAnswer, []string, Dialect) {
	t.Helper()
	tmpl, d, warnings, err := DecodeTemplateFile(data)
	if err != nil {
		return lenientAnswer{Errors: []string{err.Error()}}, nil, d
	}
	plan, errs := Compile(tmpl, d)
	var r *Result
	if len(errs) == 0 {
		r, errs = plan.Execute(Request{Parameters: values, Generator: NewSeededGenerator(1)})
	}
	if len(errs) > 0 {
		var out lenientAnswer
		for _, e := range errs {
			out.Errors = append(out.Errors, e.Error())
		}
		return out, warnings, d
	}
	out := lenientAnswer{Message: r.Message, Labels: plan.TemplateLabels(r.Parameters)}
	for _, o := range r.Objects {
		out.Objects = append(out.Objects, json.RawMessage(o))
	}
	for _, p := range r.Parameters {
		out.Parameters = append(out.Parameters, goldenParam{Name: p.Name, Value: p.Value})
	}
	if len(out.Labels) == 0 {
		out.Labels = nil
	}
	return out, append(warnings, r.Warnings...), d
}

// asStencil spells an OpenShift template of testdata/openshift-lenient as ours.
func asStencil(data []byte) []byte {
	s := strings.NewReplacer("template.openshift.io/v1", "templates.stencil.dev/v1alpha1", "\nlabels:", "\nobjectLabels:").Replace(string(data))
	return []byte(s)
}

// sameJSON compares two JSON values by their meaning, not their member order.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) any {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// TestOpenShiftLeniency processes each template as OpenShift would, with warnings, and checks
// that our own dialect still answers strictly for the same input.
func TestOpenShiftLeniency(t *testing.T) {
	for _, tc := range lenientCases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "openshift-lenient", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "openshift-lenient", strings.TrimSuffix(tc.file, filepath.Ext(tc.file))+".golden.json")
			var want lenientGolden
			goldenData, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(goldenData, &want); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got, warnings, d := lenientAnswerOf(t, data, tc.values)
			if d != OpenShift {
				t.Fatalf("dialect %v", d)
			}
			stencil, stencilWarnings, _ := lenientAnswerOf(t, asStencil(data), tc.values)
			if *update {
				want.Warnings, want.Stencil = warnings, stencil
				want.Stencil.Parameters, want.Stencil.Labels, want.Stencil.Message = nil, nil, ""
				out, err := json.MarshalIndent(want, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if len(got.Errors) > 0 {
				t.Fatalf("OpenShift's dialect refused the template: %v", got.Errors)
			}
			if !sameJSON(t, got, want.OpenShift) {
				gotJSON, _ := json.MarshalIndent(got, "", "  ")
				t.Errorf("output differs from OpenShift's:\n%s", gotJSON)
			}
			if !reflect.DeepEqual(warnings, want.Warnings) {
				t.Errorf("warnings:\n%q\nwant\n%q", warnings, want.Warnings)
			}
			stencil.Parameters, stencil.Labels, stencil.Message = nil, nil, ""
			if !sameJSON(t, stencil, want.Stencil) {
				gotJSON, _ := json.MarshalIndent(stencil, "", "  ")
				t.Errorf("our dialect's answer differs from %s:\n%s", path, gotJSON)
			}
			if len(stencilWarnings) > 0 && len(stencil.Errors) == 0 {
				t.Errorf("our dialect warned instead of refusing: %q", stencilWarnings)
			}
		})
	}
}
