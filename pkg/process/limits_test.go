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

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestOutputIsBounded checks that a template referring to a parameter many times cannot turn
// a long value into unbounded output: a request of kilobytes could otherwise ask for gigabytes.
func TestOutputIsBounded(t *testing.T) {
	refs := strings.Repeat("${P}", 1000)
	tpl := &templates.Template{
		Message:    refs[:len(refs)/2],
		Parameters: []templates.Parameter{{Name: "P"}},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"small"}}`)},
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"x":"` + refs + `"}}`)},
		},
	}
	plan, errs := Compile(tpl, Stencil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	value := strings.Repeat("v", 10_000)
	cases := []struct {
		name  string
		limit int
		want  string
	}{
		{"message", 1 << 20, "message"},
		{"object", 8 << 20, "objects[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := plan.Execute(Request{Parameters: map[string]string{"P": value}, MaxOutputBytes: tc.limit})
			if len(errs) != 1 || errs[0].Field != tc.want || !strings.Contains(errs[0].Detail, "more than") {
				t.Fatalf("want one error at %s, got %v", tc.want, errs)
			}
		})
	}
	if _, errs := plan.Execute(Request{Parameters: map[string]string{"P": "short"}}); len(errs) > 0 {
		t.Fatalf("a short value: %v", errs)
	}
}
