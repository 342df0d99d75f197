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
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestEscaperRoundTrip checks that a string written through the Escaper comes out of
// processing as it was, whatever references, escapes and Kubernetes variables it holds.
func TestEscaperRoundTrip(t *testing.T) {
	params := []string{"NAME", "IMAGE"}
	cases := []string{
		"plain",
		"${NAME}",
		"${{NAME}}",
		"$(NAME)",
		"$((NAME))",
		"$(HOME) stays Kubernetes' variable",
		"$$(HOME) stays Kubernetes' escape",
		"$$(NAME)",
		"$${NAME}",
		"$$$${NAME}",
		"${UNDECLARED} and ${1}",
		"echo $$ and $ and $",
		"a${NAME}b$(IMAGE)c${HOME}",
		"${",
		"$",
	}
	escaper := NewEscaper(params)
	for _, s := range cases {
		t.Run(s, func(t *testing.T) {
			escaped := escaper.Escape(s)
			obj, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"},
				"data": map[string]any{"k": escaped, escaped: "key"}})
			tmpl := &templates.Template{Objects: []runtime.RawExtension{{Raw: obj}}}
			for _, p := range params {
				tmpl.Parameters = append(tmpl.Parameters, templates.Parameter{Name: p, Value: "value-of-" + p})
			}
			plan, errs := Compile(tmpl, Stencil)
			if len(errs) > 0 {
				t.Fatalf("escaped %q does not compile: %v", escaped, errs)
			}
			res, errs := plan.Execute(Request{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var out struct {
				Data map[string]string `json:"data"`
			}
			if err := json.Unmarshal(res.Objects[0], &out); err != nil {
				t.Fatal(err)
			}
			if out.Data["k"] != s || out.Data[s] != "key" {
				t.Errorf("escaped as %q, processed into %q (key %v), want %q", escaped, out.Data["k"], out.Data, s)
			}
		})
	}
}
