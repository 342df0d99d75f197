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

package transform_test

import (
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/builtin"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// raws turns YAML configs into RawExtensions.
func raws(t *testing.T, configs ...string) []runtime.RawExtension {
	t.Helper()
	out := make([]runtime.RawExtension, len(configs))
	for i, c := range configs {
		out[i] = runtime.RawExtension{Raw: transformtest.YAMLJSON(t, c)}
	}
	return out
}

// store is a TemplateGetter over a map.
func store(ts ...*templates.Template) transform.TemplateGetter {
	m := map[string]*templates.Template{}
	for _, t := range ts {
		m[t.Name] = t
	}
	return func(name string) (*templates.Template, error) {
		if t, ok := m[name]; ok {
			return t, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: "templates.stencil.dev", Resource: "templates"}, name)
	}
}

func tmpl(name string) *templates.Template {
	t := &templates.Template{}
	t.Name = name
	return t
}

func importOf(name string, mode templates.ImportMode) templates.TransformerImport {
	return templates.TransformerImport{Name: name, ImportMode: mode}
}

// TestConsolidateChain imports three levels deep, overrides at two levels and reorders.
func TestConsolidateChain(t *testing.T) {
	org := tmpl("org")
	org.Transformers = raws(t,
		"{kind: PrefixSuffixTransformer, metadata: {name: org-prefix}, prefix: org-}",
		"{apiVersion: builtin, kind: LabelTransformer, labels: {org: acme}}")
	team := tmpl("team")
	team.TransformersFrom = []templates.TransformerImport{importOf("org", "")}
	team.Transformers = raws(t, "{kind: AnnotationsTransformer, annotations: {team: a}}")
	team.TransformerOverrides = raws(t, "{kind: LabelTransformer, labels: {team: a}}")
	tail := tmpl("tail")
	tail.Transformers = raws(t, "{kind: ImageTagTransformer, metadata: {name: tail-image}, imageTag: {name: nginx, newTag: '2'}}")
	app := tmpl("app")
	app.TransformersFrom = []templates.TransformerImport{importOf("team", templates.ImportModePrepend), importOf("tail", templates.ImportModeAppend)}
	app.Transformers = raws(t, "{kind: ReplicaCountTransformer, replica: {name: web, count: 4}}")
	app.TransformerOverrides = raws(t,
		"{kind: PrefixSuffixTransformer, metadata: {name: org-prefix}, prefix: app-, suffix: -v1}",
		"{kind: LabelTransformer, labels: {org: null, app: web}}")
	app.TransformerOrder = []templates.TransformerReference{
		{Name: "label-transformer"}, {Name: "org-prefix"}, {Name: "tail-image"},
		{Name: "annotations-transformer"}, {Name: "replica-count-transformer"},
	}

	configs, errs := transform.Consolidate(app, store(org, team, tail))
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var got []string
	for _, c := range configs {
		got = append(got, c.Name+"@"+c.Path.String())
	}
	want := []string{
		"label-transformer@transformersFrom[0].transformersFrom[0].transformers[1]",
		"org-prefix@transformersFrom[0].transformersFrom[0].transformers[0]",
		"tail-image@transformersFrom[1].transformers[0]",
		"annotations-transformer@transformersFrom[0].transformers[0]",
		"replica-count-transformer@transformers[0]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var label builtin.LabelConfig
	if err := json.Unmarshal(configs[0].Raw, &label); err != nil {
		t.Fatal(err)
	}
	if len(label.Labels) != 2 || label.Labels["team"] != "a" || label.Labels["app"] != "web" {
		t.Errorf("overrides of two levels not merged: %v", label.Labels)
	}
	if !strings.Contains(string(configs[1].Raw), `"prefix":"app-"`) || !strings.Contains(string(configs[1].Raw), `"suffix":"-v1"`) {
		t.Errorf("override not applied: %s", configs[1].Raw)
	}

	// The consolidated list runs: labels first (so the prefix renames after), images last.
	p, errs := testKinds.Compile(plugin.Policy{}, configs)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	out, warnings, err := transformtest.RunPipeline(p, []json.RawMessage{transformtest.YAMLJSON(t, "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {template: {spec: {containers: [{name: c, image: nginx}]}}}}")})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	objs, _ := jsonbytes.DecodeObjects(out)
	transformtest.AssertObjects(t, objs, transformtest.YAMLDocs(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-web-v1, labels: {team: a, app: web}, annotations: {team: a}}
spec:
  replicas: 4
  selector: {matchLabels: {team: a, app: web}}
  template:
    metadata: {labels: {team: a, app: web}, annotations: {team: a}}
    spec: {containers: [{name: c, image: "nginx:2"}]}
`))

	rendered, err := transform.RenderYAML(configs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(rendered), "# transformersFrom[0].transformersFrom[0].transformers[1]\n- apiVersion: builtin\n") {
		t.Errorf("rendered:\n%s", rendered)
	}
}

func TestConsolidateErrors(t *testing.T) {
	a, b, c := tmpl("a"), tmpl("b"), tmpl("c")
	a.TransformersFrom = []templates.TransformerImport{importOf("b", "")}
	b.TransformersFrom = []templates.TransformerImport{importOf("c", "")}
	c.TransformersFrom = []templates.TransformerImport{importOf("a", "")}
	_, errs := transform.Consolidate(a, store(a, b, c))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "a -> b -> c -> a") ||
		errs[0].Field != "transformersFrom[0].transformersFrom[0].transformersFrom[0].name" {
		t.Errorf("cycle: %v", errs)
	}

	for _, tc := range []struct {
		name   string
		t      *templates.Template
		others []*templates.Template
		want   string
	}{{
		name: "missing import",
		t:    &templates.Template{TransformersFrom: []templates.TransformerImport{importOf("gone", "")}},
		want: "transformersFrom[0].name: Not found",
	}, {
		name: "unknown name in order",
		t: &templates.Template{
			Transformers:     raws(t, "{kind: LabelTransformer, labels: {a: b}}"),
			TransformerOrder: []templates.TransformerReference{{Name: "label-transformer"}, {Name: "nope"}},
		},
		want: "transformerOrder[1].name: Not found",
	}, {
		name: "order misses a transformer",
		t: &templates.Template{
			Transformers:     raws(t, "{kind: LabelTransformer, labels: {a: b}}", "{kind: AnnotationsTransformer}"),
			TransformerOrder: []templates.TransformerReference{{Name: "label-transformer"}},
		},
		want: "missing: annotations-transformer",
	}, {
		name: "duplicate names across imports",
		t: &templates.Template{
			TransformersFrom: []templates.TransformerImport{importOf("x", "")},
			Transformers:     raws(t, "{kind: LabelTransformer, labels: {a: b}}"),
		},
		others: []*templates.Template{{ObjectMeta: tmpl("x").ObjectMeta, Transformers: raws(t, "{kind: LabelTransformer}")}},
		want:   "transformers[0].metadata.name: Duplicate value",
	}, {
		name: "override matches nothing",
		t: &templates.Template{
			Transformers:         raws(t, "{kind: LabelTransformer, labels: {a: b}}"),
			TransformerOverrides: raws(t, "{kind: LabelTransformer, metadata: {name: other}}"),
		},
		want: "transformerOverrides[0].metadata.name",
	}, {
		name: "config without kind",
		t:    &templates.Template{Transformers: raws(t, "{labels: {a: b}}")},
		want: "transformers[0].kind: Required",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := transform.Consolidate(tc.t, store(tc.others...))
			if !strings.Contains(errs.ToAggregate().Error(), tc.want) {
				t.Errorf("got %v, want %q", errs.ToAggregate(), tc.want)
			}
		})
	}
}
