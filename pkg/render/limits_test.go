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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform"
)

// kustomized is a template of three ConfigMaps under an inline Kustomization whose patch
// applies to each of them: 3 objects, 6 applications, a few hundred bytes.
func kustomized() *templates.Template {
	var objects []string
	for i := range 3 {
		objects = append(objects, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"},"data":{"a":"b"}}`, i))
	}
	return &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "k"},
		Transformers: raw(`{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","metadata":{"name":"kz"},` +
			`"patches":[{"target":{"kind":"ConfigMap"},"patch":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"any\"},\"data\":{\"x\":\"y\"}}"}]}`),
		Objects: raw(objects...),
	}
}

// expanded is a template whose one string expands to 32 bytes.
func expanded() *templates.Template {
	return &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "e"},
		Objects: raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","annotations":{"control.kubestellar.io/expand-templates":"true"}},` +
			`"data":{"x":"{{.p}}{{.p}}"}}`),
	}
}

// chained imports "mid", which imports "leaf": a chain of depth 2 and two reads.
func chained() *templates.Template {
	return &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "top"},
		TransformersFrom: []templates.TransformerImport{{Name: "mid"}},
		Objects:          raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)}
}

func chainGetter(name string) (*templates.Template, error) {
	t := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: name, UID: k8stypes.UID("u-" + name), ResourceVersion: "1"},
		Transformers: raw(`{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"` + name + `"},"labels":{"` + name + `":"yes"}}`)}
	if name == "mid" {
		t.TransformersFrom = []templates.TransformerImport{{Name: "leaf"}}
	}
	return t, nil
}

// TestServerLimitsTakeEffect: each processing limit a server's flags set, lowered below what
// the request needs, answers a problem (a 422) where the defaults process the request.
func TestServerLimitsTakeEffect(t *testing.T) {
	cases := []struct {
		name      string
		template  func() *templates.Template
		limits    transform.Limits
		wantField string
		wantText  string
	}{
		{"kustomize objects", kustomized, transform.Limits{KustomizeObjects: 2}, "transformers", "at most 2 objects"},
		{"kustomize bytes", kustomized, transform.Limits{KustomizeBytes: 100}, "transformers", "at most 100 bytes"},
		{"kustomize applications", kustomized, transform.Limits{KustomizeApplications: 5}, "transformers", "at most 5 are allowed"},
		{"expansion output", expanded, transform.Limits{ExpansionOutputBytes: 16}, "objects[0].data.x", "output exceeds the limit of 16"},
		{"expansion work", expanded, transform.Limits{ExpansionWork: 16}, "objects[0].data.x", "work limit"},
		{"transformer imports", chained, transform.Limits{TransformerImports: 1}, "transformersFrom[0].transformersFrom[0]", "Too many"},
		{"import depth", chained, transform.Limits{ImportDepth: 1}, "transformersFrom[0].transformersFrom[0].name", "deeper than 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := func() Input {
				return Input{Template: tc.template(), GetTemplate: chainGetter,
					Properties: map[string]string{"p": strings.Repeat("v", 16)}}
			}
			if _, errs, err := NewRenderer(Options{}).Render(context.Background(), in()); err != nil || len(errs) > 0 {
				t.Fatalf("with the defaults: %v %v", err, errs)
			}
			_, errs, err := NewRenderer(Options{Config: Config{Limits: tc.limits}}).Render(context.Background(), in())
			if err != nil {
				t.Fatal(err)
			}
			if !hasField(errs, tc.wantField) || !strings.Contains(errs.ToAggregate().Error(), tc.wantText) {
				t.Fatalf("want a problem at %s saying %q, got %v", tc.wantField, tc.wantText, errs)
			}
		})
	}
}

// TestExpansionLimitsSharedByDestinations: the request's expansion budget is split among its
// destinations, each keeping a floor no larger than the whole budget.
func TestExpansionLimitsSharedByDestinations(t *testing.T) {
	a := &afterEngine{destinations: make([]templates.Destination, 4), limits: transform.Limits{}.WithDefaults()}
	if got := a.expansionLimits(4); got.MaxOutputBytes != 256<<10 || got.MaxWork != 8<<20 {
		t.Fatalf("defaults over 4 destinations: %+v", got)
	}
	a.limits = transform.Limits{ExpansionOutputBytes: 1000, ExpansionWork: 4000}
	if got := a.expansionLimits(4); got.MaxOutputBytes != 1000 || got.MaxWork != 4000 {
		t.Fatalf("a budget below the floor is not raised to it: %+v", got)
	}
}
