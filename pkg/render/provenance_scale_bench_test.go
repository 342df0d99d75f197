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
	"fmt"
	"os"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/process"
)

// scaledTemplates are the templates of BenchmarkProvenanceScaling, as files of n objects: n
// ConfigMaps and no transformer (a placed field per leaf, nothing else), in YAML and JSON, and the README's
// example (a ConfigMap, a Service and a Deployment, a label and an image-tag transformer)
// repeated to n objects (up to 1,000: past 100,000 leaf fields provenance is refused).
func scaledTemplates(b *testing.B, n int) map[string][]byte {
	var cm strings.Builder
	cm.WriteString("apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: many\nparameters:\n- name: NAME\n  value: app\nobjects:\n")
	for i := range n {
		fmt.Fprintf(&cm, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${NAME}-%d\n    labels: {app: web}\n  data:\n    key: value-%d\n    other: \"${NAME}\"\n", i, i)
	}
	example, err := os.ReadFile("../../artifacts/examples/app.yaml")
	if err != nil {
		b.Fatal(err)
	}
	head, objects, ok := strings.Cut(string(example), "\nobjects:\n")
	if !ok {
		b.Fatal("app.yaml has no objects")
	}
	var app strings.Builder
	app.WriteString(head + "\nobjects:\n")
	for i := 0; i < n; i += 3 {
		app.WriteString(strings.ReplaceAll(objects, "${NAME}", fmt.Sprintf("${NAME}-%d", i)))
	}
	// The same ConfigMaps as a JSON file, indented as kubectl writes it: a JSON file is indexed
	// as it is, its places found in its own bytes.
	var js strings.Builder
	js.WriteString("{\n  \"apiVersion\": \"templates.stencil.dev/v1alpha1\",\n  \"kind\": \"Template\",\n  \"metadata\": {\"name\": \"many\"},\n" +
		"  \"parameters\": [{\"name\": \"NAME\", \"value\": \"app\"}],\n  \"objects\": [")
	for i := range n {
		if i > 0 {
			js.WriteString(",")
		}
		fmt.Fprintf(&js, "\n    {\n      \"apiVersion\": \"v1\",\n      \"kind\": \"ConfigMap\",\n      \"metadata\": {\"name\": \"${NAME}-%d\", \"labels\": {\"app\": \"web\"}},\n"+
			"      \"data\": {\"key\": \"value-%d\", \"other\": \"${NAME}\"}\n    }", i, i)
	}
	js.WriteString("\n  ]\n}\n")
	return map[string][]byte{"configmaps": []byte(cm.String()), "configmaps.json": []byte(js.String()), "app": []byte(app.String())}
}

// BenchmarkProvenanceScaling is a template file of 100, 1,000 and 10,000 objects processed as
// stencil process --local does, from the file's bytes to the List, without provenance (render,
// the baseline) and with the provenance of every leaf field placed at its line and column in
// the file (provenance: the file read with its places, the engine's trace, every step's diff,
// the map). Each 10 times more objects must cost at most 12 times more, and provenance at most
// 3 times the render (hack/benchtable).
func BenchmarkProvenanceScaling(b *testing.B) {
	r := NewRenderer(Options{})
	for _, n := range []int{100, 1000, 10000} {
		files := scaledTemplates(b, n)
		for _, name := range []string{"configmaps", "configmaps.json", "app"} {
			if name == "app" && n > 1000 {
				// 10,000 of its objects have more leaf fields than provenance describes
				// (provenance.DefaultMaxFields): the request is refused.
				continue
			}
			data := files[name]
			b.Run(fmt.Sprintf("%s/objects=%d/render", name, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					f, err := process.ReadTemplateFile("many.yaml", data, false)
					if err != nil {
						b.Fatal(err)
					}
					if _, errs, err := r.Render(context.Background(), Input{Template: f.Template}); err != nil || len(errs) > 0 {
						b.Fatal(err, errs)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/objects=%d/provenance", name, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					f, err := process.ReadTemplateFile("many.yaml", data, true)
					if err != nil {
						b.Fatal(err)
					}
					out, errs, err := r.Render(context.Background(), Input{Template: f.Template, Provenance: &ProvenanceOptions{Positions: f.Positions()}})
					if err != nil || len(errs) > 0 {
						b.Fatal(err, errs)
					}
					if fields := out.Provenance.Objects[n-1].Fields; len(fields) == 0 || fields[0].Source.Line == 0 {
						b.Fatalf("the last object's fields are not placed: %+v", fields)
					}
				}
			})
		}
	}
}
