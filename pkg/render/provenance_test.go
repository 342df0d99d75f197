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

package render_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
	"stencil.dev/stencil/pkg/render"
)

// renderTraced processes a template file with provenance.
func renderTraced(t *testing.T, name string, data []byte, in render.Input) (*render.Output, *positions.Index) {
	t.Helper()
	x, err := positions.Read(name, data)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, _, err := process.DecodeTemplate(x.JSON())
	if err != nil {
		t.Fatal(err)
	}
	in.Template = tmpl
	if in.Provenance == nil {
		in.Provenance = &render.ProvenanceOptions{}
	}
	in.Provenance.Positions = x
	out, errs, err := render.NewRenderer(render.Options{}).Render(context.Background(), in)
	if err != nil || len(errs) > 0 {
		t.Fatalf("render: %v %v", err, errs)
	}
	return out, x
}

// field returns the provenance of one field of one object, failing the test without it.
func field(t *testing.T, m *provenance.Map, object, path string) (*provenance.Field, []string) {
	t.Helper()
	matches, err := provenance.Find(m, object, path)
	if err != nil || len(matches) != 1 {
		t.Fatalf("%s %s: %v (%d matches)", object, path, err, len(matches))
	}
	return matches[0].Field, provenance.Explain(m, matches[0])
}

// TestProvenanceOfTheExample: the README's example, whose image tag a transformer sets from a
// parameter, whose labels come from the template, the request and a transformer, and whose
// replicas come from a typed parameter: every field says so, with the file's lines.
func TestProvenanceOfTheExample(t *testing.T) {
	data, err := os.ReadFile("../../artifacts/examples/app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := renderTraced(t, "app.yaml", data, render.Input{Request: process.Request{Labels: map[string]string{"env": "dev"}}})
	m := out.Provenance
	if len(m.Objects) != len(out.Objects) {
		t.Fatalf("%d objects described, %d output", len(m.Objects), len(out.Objects))
	}
	image, lines := field(t, m, "Deployment/my-app", "spec.template.spec.containers[0].image")
	if image.Source.Path != "objects[2].spec.template.spec.containers[0].image" || image.Source.Line != 74 || image.Source.Column != 11 {
		t.Errorf("image source: %+v", image.Source)
	}
	if len(image.Steps) != 1 || m.Steps[image.Steps[0]].Kind != "ImageTagTransformer" || m.Steps[image.Steps[0]].Source.Line != 37 {
		t.Errorf("image steps: %v %+v", image.Steps, m.Steps)
	}
	want := []string{
		"app.yaml:74:11: written by the template at objects[2].spec.template.spec.containers[0].image",
		`app.yaml:37:3: step 2, transformers[1] ImageTagTransformer "image-tag-transformer" changed it (parameters: IMAGE_TAG)`,
	}
	if len(lines) != len(want) || lines[0] != want[0] || lines[1] != want[1] {
		t.Errorf("why:\n%q\nwant\n%q", lines, want)
	}
	replicas, _ := field(t, m, "Deployment/my-app", "spec.replicas")
	if replicas.Source.Line != 65 || len(replicas.Parameters) != 1 || replicas.Parameters[0] != "REPLICAS" || len(replicas.Steps) != 0 {
		t.Errorf("replicas: %+v", replicas)
	}
	for path, kind := range map[string]provenance.SourceKind{
		"metadata.labels.env":                     provenance.RequestLabels,
		"metadata.labels[app.kubernetes.io/name]": provenance.ObjectLabels,
		"metadata.labels.team":                    provenance.Step,
		"spec.selector.matchLabels.app":           provenance.Template,
	} {
		if f, _ := field(t, m, "Deployment/my-app", path); f.Source.Kind != kind {
			t.Errorf("%s: source %+v, want %s", path, f.Source, kind)
		}
	}
	if f, _ := field(t, m, "ConfigMap/my-app-config", "data.CLUSTER"); len(f.Steps) != 1 || m.Steps[f.Steps[0]].Kind != "Expansion" {
		t.Errorf("the expanded field: %+v", f)
	}
	if n, unmapped := coverage(m); unmapped != 0 || n == 0 {
		t.Errorf("%d of %d fields map to no source", unmapped, n)
	}
}

// coverage counts the leaf fields and those that map to no source: a field of a template
// object must say where the template wrote it, a field a step made which step.
func coverage(m *provenance.Map) (fields, unmapped int) {
	for _, o := range m.Objects {
		for _, f := range o.Fields {
			fields++
			switch f.Source.Kind {
			case provenance.Template, provenance.ObjectLabels:
				if f.Source.Path == "" {
					unmapped++
				}
			case provenance.RequestLabels:
			case provenance.Step:
				if len(f.Steps) == 0 {
					unmapped++
				}
			default:
				unmapped++
			}
		}
	}
	return fields, unmapped
}

// TestProvenanceOfEngineRules: what the engine itself does is traced to the template: a
// for-each object's copies (with ITEM), a typed ${{P}} that writes an object, a substituted
// member name, template labels merged into a selector, a generator's object and the hash
// suffix, and per-destination copies, each with the destination's step.
func TestProvenanceOfEngineRules(t *testing.T) {
	file := `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata:
  name: rules
parameters:
- name: ENVS
  type: json
  value: '["dev","prod"]'
- name: RES
  type: json
  value: '{"limits":{"cpu":"1"}}'
- name: KEY
  value: color
objectLabels:
  app: web
generators:
- kind: ConfigMapGenerator
  name: settings
  literals: ["mode=fast"]
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm-${ITEM}
    annotations:
      templates.stencil.dev/for-each: params.ENVS
  data:
    env: ${ITEM}
    ${KEY}: blue
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    selector:
      matchLabels: {tier: front}
    template:
      spec:
        containers:
        - name: app
          image: nginx
          resources: ${{RES}}
`
	out, _ := renderTraced(t, "rules.yaml", []byte(file), render.Input{Destinations: []templates.Destination{{Name: "a"}, {Name: "b"}}})
	m := out.Provenance
	matches, err := provenance.Find(m, "ConfigMap/cm-prod", "data.env")
	if err != nil || len(matches) != 2 {
		t.Fatalf("one per destination: %v %v", matches, err)
	}
	if f := matches[0].Field; f.Source.Path != "objects[0].data.env" || f.Source.Line != 28 || !slices.Equal(f.Parameters, []string{"ITEM"}) ||
		matches[0].Object.Element == nil || *matches[0].Object.Element != 1 {
		t.Errorf("a for-each element: %+v in %+v", f, matches[0].Object)
	}
	if f, _ := field2(t, m, "ConfigMap/cm-dev", "data.color"); f.Source.Path != "objects[0].data[${KEY}]" || !slices.Equal(f.Parameters, []string{"KEY"}) {
		t.Errorf("a substituted member name: %+v", f)
	}
	if f, _ := field2(t, m, "Deployment/web", "spec.template.spec.containers[0].resources.limits.cpu"); f.Source.Path != "objects[1].spec.template.spec.containers[0].resources" || !slices.Equal(f.Parameters, []string{"RES"}) {
		t.Errorf("what a typed reference wrote: %+v", f)
	}
	if f, _ := field2(t, m, "Deployment/web", "spec.selector.matchLabels.app"); f.Source.Kind != provenance.ObjectLabels || f.Source.Line != 15 {
		t.Errorf("a label in a selector: %+v", f)
	}
	if f, _ := field2(t, m, "Deployment/web", "metadata.annotations[templates.stencil.dev/destination]"); f.Source.Kind != provenance.Step || m.Steps[f.Steps[0]].Kind != "Destination" {
		t.Errorf("the destination's annotation: %+v %+v", f, m.Steps)
	}
	var generated *provenance.Object
	for i := range m.Objects {
		if strings.HasPrefix(m.Objects[i].Name, "settings-") {
			generated = &m.Objects[i]
			break
		}
	}
	if generated == nil || generated.Source.Kind != provenance.Step || m.Steps[generated.Steps[0]].Kind != "ConfigMapGenerator" {
		t.Fatalf("the generated object: %+v", generated)
	}
	for _, f := range generated.Fields {
		if f.Path == "metadata.name" && (len(f.Steps) != 2 || m.Steps[f.Steps[1]].Kind != "NameHash") {
			t.Errorf("the generated name's steps: %+v", f)
		}
	}
	if n, unmapped := coverage(m); unmapped != 0 {
		t.Errorf("%d of %d fields map to no source", unmapped, n)
	}
}

// field2 is field, for objects that appear once per destination: the first.
func field2(t *testing.T, m *provenance.Map, object, path string) (*provenance.Field, []string) {
	t.Helper()
	matches, err := provenance.Find(m, object, path)
	if err != nil || len(matches) == 0 {
		t.Fatalf("%s %s: %v", object, path, err)
	}
	return matches[0].Field, provenance.Explain(m, matches[0])
}
