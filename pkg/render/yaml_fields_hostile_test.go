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

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/heaptest"
)

// aliasBombPatch is a strategic-merge patch of 1 MB whose one scalar is aliased 500 times:
// 500 MB once its aliases are expanded, by sigs.k8s.io/yaml or kyaml.
func aliasBombPatch() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    big: &big " + strings.Repeat("x", 1<<20) + "\ndata:\n")
	for i := range 500 {
		b.WriteString("  k" + strings.Repeat("0", 3) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ": *big\n")
	}
	return b.String()
}

// TestYAMLInTemplateFieldsIsBounded: a template sent as JSON may still carry YAML in its
// strings, which the server reads: a PatchTransformer's patch and a Kustomization's patches
// (which Kustomize reads again with kyaml). Aliases there are bounded in bytes as a YAML body's
// are: each is refused as a problem of its field, before any expansion, holding a small
// multiple of the template.
func TestYAMLInTemplateFieldsIsBounded(t *testing.T) {
	patch, _ := json.Marshal(aliasBombPatch())
	object := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`
	cases := []struct {
		name, transformer, field string
	}{
		{"PatchTransformer", `{"apiVersion":"builtin","kind":"PatchTransformer","metadata":{"name":"p"},"patch":` + string(patch) + `}`,
			"transformers[0].patch"},
		{"a Kustomization's patches", `{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","metadata":{"name":"k"},"patches":[{"patch":` + string(patch) + `}]}`,
			"transformers[0].patches[0].patch"},
		{"a Kustomization's patchesStrategicMerge", `{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","metadata":{"name":"k"},"patchesStrategicMerge":[` + string(patch) + `]}`,
			"transformers[0].patchesStrategicMerge[0]"},
	}
	r := NewRenderer(Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "bomb"}, Objects: raw(object), Transformers: raw(tc.transformer)}
			var errText string
			peak := heaptest.Peak(func() {
				out, errs, err := r.Render(context.Background(), Input{Template: tpl})
				if err != nil || out != nil || len(errs) == 0 {
					t.Fatalf("want the template's problem, got %v, %v, %v", out, errs, err)
				}
				errText = errs.ToAggregate().Error()
			})
			if !strings.Contains(errText, tc.field) || !strings.Contains(errText, "aliases expand") {
				t.Errorf("want a problem of %s saying the aliases expand too far, got %.400s", tc.field, errText)
			}
			t.Logf("refused holding at most %d MiB: %.200s", peak>>20, errText)
			if peak > 64<<20 {
				t.Errorf("refusing a 1 MB patch held %d MiB", peak>>20)
			}
		})
	}
}
