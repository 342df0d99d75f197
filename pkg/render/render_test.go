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
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform/remove"
)

func raw(objects ...string) []runtime.RawExtension {
	out := make([]runtime.RawExtension, len(objects))
	for i, o := range objects {
		out[i].Raw = []byte(o)
	}
	return out
}

func app() *templates.Template {
	return &templates.Template{
		ObjectMeta:       metav1.ObjectMeta{Name: "app", UID: "u1", ResourceVersion: "7"},
		Parameters:       []templates.Parameter{{Name: "NAME", Value: "web"}},
		Transformers:     raw(`{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","prefix":"p-"}`),
		TransformersFrom: []templates.TransformerImport{{Name: "base", ImportMode: templates.ImportModePrepend}},
		Objects: raw(
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"${NAME}"},"spec":{"ports":[{"port":80,"nodePort":30080}]}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hello","annotations":{"control.kubestellar.io/expand-templates":"true"}},"data":{"where":"{{.clusterName}}"}}`,
		),
	}
}

func base(string) (*templates.Template, error) {
	return &templates.Template{
		ObjectMeta:   metav1.ObjectMeta{Name: "base", UID: "u0", ResourceVersion: "3"},
		Transformers: raw(`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"team":"a"}}`),
	}, nil
}

// TestProcessOrder checks the order of processing (docs/architecture.md, the path of one
// request): engine, imported then own transformers,
// CustomTransforms, then expansion per destination.
func TestProcessOrder(t *testing.T) {
	rule, errs := remove.RuleFor(&templates.CustomTransform{ObjectMeta: metav1.ObjectMeta{Name: "no-nodeport"},
		Spec: templates.CustomTransformSpec{Resource: "services", Remove: []string{"$.spec.ports[*].nodePort"}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	rules := []remove.Rule{rule}
	p := NewRenderer(Options{})
	for round := 0; round < 2; round++ { // the second round runs the cached plan and pipeline
		out, errs, err := p.Render(context.Background(), Input{
			Template: app(), Stored: true, GetTemplate: base, RemovalRules: rules,
			Destinations: []templates.Destination{{Name: "virgo"}, {Name: "leo"}},
		})
		if err != nil || len(errs) > 0 {
			t.Fatalf("round %d: %v %v", round, err, errs)
		}
		if len(out.Objects) != 4 {
			t.Fatalf("want 2 objects for each of 2 destinations, got %d", len(out.Objects))
		}
		var svc, cm map[string]any
		if err := json.Unmarshal(out.Objects[0], &svc); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out.Objects[3], &cm); err != nil {
			t.Fatal(err)
		}
		meta := svc["metadata"].(map[string]any)
		if meta["name"] != "p-web" || meta["labels"].(map[string]any)["team"] != "a" {
			t.Fatalf("transformers: %s", out.Objects[0])
		}
		if strings.Contains(string(out.Objects[0]), "nodePort") {
			t.Fatalf("CustomTransform not applied: %s", out.Objects[0])
		}
		if cm["data"].(map[string]any)["where"] != "leo" {
			t.Fatalf("expansion for the second destination: %s", out.Objects[3])
		}
		// The imported template is reported on every round, cached or not: whoever applies
		// the objects checks its author's rights.
		if len(out.Imported) != 1 || out.Imported[0].Name != "base" {
			t.Fatalf("round %d: imported %v", round, out.Imported)
		}
	}
}

func TestProcessErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Input)
		want   string
	}{
		{"imports refused without a getter", func(in *Input) { in.GetTemplate = nil }, "transformersFrom[0].name"},
		{"a transformer fails", func(in *Input) {
			in.Template.Transformers = raw(`{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replicas":[{"name":"x","count":"many"}]}`)
		}, "transformers"},
		{"a property is missing", func(in *Input) {
			in.Template.Objects = raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":"true"}},"data":{"x":"{{.missing}}"}}`)
		}, "objects[0].data.x"},
		{"a required value is missing", func(in *Input) {
			in.Template.Parameters = []templates.Parameter{{Name: "NAME", Required: true}}
		}, "parameters[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Template: app(), GetTemplate: base, Request: process.Request{}}
			tc.mutate(&in)
			_, errs, err := NewRenderer(Options{}).Render(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if len(errs) == 0 || !hasField(errs, tc.want) {
				t.Fatalf("want an error at %s, got %v", tc.want, errs)
			}
		})
	}
}

func hasField(errs field.ErrorList, prefix string) bool {
	for _, e := range errs {
		if strings.HasPrefix(e.Field, prefix) {
			return true
		}
	}
	return false
}
