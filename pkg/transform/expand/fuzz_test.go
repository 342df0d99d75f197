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

package expand

import (
	"reflect"
	"strings"
	"testing"
	"text/template"

	"stencil.dev/stencil/pkg/transform"
)

// FuzzExpand runs expansion on fuzzed templates and property values. It checks that Templates
// never panics, never changes anything when it fails, names the object and path in every
// error, respects its limits, and, whenever it succeeds, gives exactly what plain
// text/template gives: the safety wrappers must not change what a template means.
func FuzzExpand(f *testing.F) {
	for _, seed := range [][2]string{
		{"https://loki/{{ .clusterName }}-{{.region}}", "east"},
		{"AB{{.p1}}C{{.region}}D", "x"},
		{"{{ index . \"nope\" }}", ""},
		{"{{ upper .region }}", "a"},
		{"{{range $k, $v := .}}{{$k}}={{$v}};{{end}}", "v"},
		{"{{range 5}}{{.}}{{end}}", ""},
		{"{{if eq .region \"a\" \"b\"}}y{{else if lt 1 2}}z{{end}}", "b"},
		{"{{printf \"%08.3f|%x|%q\" 3.14159 .region .region}}", "\x00é"},
		{"{{html .region}}{{js .region}}{{urlquery .region}}", "<a href='x'>&</a>"},
		{"{{define \"t\"}}[{{.}}]{{end}}{{template \"t\" .region}}{{block \"b\" 2}}{{.}}{{end}}", "r"},
		{"{{len .region}}{{slice .region 1}}{{index .region 0}}", "hello"},
		{"{{$a := print .region .region}}{{$a}}{{with $a}}{{.}}{{end}}", "ab"},
		{"{{range 1000000000}}{{end}}", ""},
		{"{{ .region.x }}", "s"},
		{"{{ + }}", ""},
		{"{{if true}}", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	limits := Limits{MaxOutputBytes: 1 << 16, MaxWork: 1 << 20}
	f.Fuzz(func(t *testing.T, text, value string) {
		props := map[string]string{"clusterName": "c1", "region": value, "p1": "X"}
		mk := func() transform.Object {
			return transform.Object{
				"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "cm", "annotations": map[string]any{TemplatesAnnotation: "true"}},
				"data":     map[string]any{"a": text, "plain": "no template"},
				"keys":     map[string]any{text: "key"},
				"list":     []any{text, 1, nil},
			}
		}
		obj := mk()
		errs := Templates([]transform.Object{obj}, props, limits)
		if len(errs) > 0 {
			if !reflect.DeepEqual(obj, mk()) {
				t.Fatalf("expansion of %q failed but changed the object", text)
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Field, "objects[0].") || !strings.Contains(e.Detail, "v1 ConfigMap cm") {
					t.Fatalf("error does not name the object and path: %v", e)
				}
			}
			return
		}
		data := obj["data"].(map[string]any)
		if obj["keys"].(map[string]any)[text] != "key" || data["plain"] != "no template" {
			t.Fatalf("a key or a plain string changed: %v", obj)
		}
		got, _ := data["a"].(string)
		if !strings.Contains(text, "{{") {
			if got != text {
				t.Fatalf("%q without {{ became %q", text, got)
			}
			return
		}
		if 2*len(got) > limits.MaxOutputBytes {
			t.Fatalf("output of %d bytes twice over the limit", len(got))
		}
		if obj["list"].([]any)[0] != got {
			t.Fatalf("the same template gave two outputs")
		}
		// The template finished within the work limit, so plain text/template finishes too.
		plain, err := template.New("objects[0].data.a").Option("missingkey=error").Parse(text)
		if err != nil {
			if strings.Contains(text, expandStepFunc) {
				return // the only function Templates adds
			}
			t.Fatalf("Templates accepted %q, text/template does not: %v", text, err)
		}
		var b strings.Builder
		if err := plain.Execute(&b, props); err != nil {
			t.Fatalf("Templates accepted %q, text/template fails: %v", text, err)
		}
		if b.String() != got {
			t.Fatalf("Templates(%q) = %q, text/template gives %q", text, got, b.String())
		}
	})
}
