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
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform/plugin"
)

func TestValidateTransformers(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    *templates.Template
		want []string // error fields; none means valid
	}{{
		name: "valid list",
		t: &templates.Template{Transformers: raws(t,
			"{kind: PrefixSuffixTransformer, prefix: p-}",
			"{apiVersion: builtin, kind: PatchTransformer, target: {kind: Deployment, name: 'app-.*'}, patch: {spec: {replicas: 2}}}",
			"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namePrefix: x-}")},
	}, {
		name: "paths of every problem",
		t: &templates.Template{Transformers: raws(t,
			"{kind: LabelTransformer, labels: {a: b}}",
			"{kind: NoSuchTransformer}",
			"{kind: PatchTransformer, target: {name: 'app-(', labelSelector: '!!'}, patch: 'a: [b'}",
			"{apiVersion: example.com/v1, kind: MyPlugin}",
			"{kind: LabelTransformer, labels: {c: d}}",
			"{kind: ReplicaCountTransformer, metadata: {name: Bad_Name}, replica: {count: 1}}",
			"[1, 2]")},
		want: []string{
			"transformers[1].kind", "transformers[2].target.name", "transformers[2].target.labelSelector",
			"transformers[2].patch", "transformers[3].apiVersion", "transformers[4].metadata.name",
			"transformers[5].metadata.name", "transformers[5].replica.name", "transformers[6]",
		},
	}, {
		name: "parameter references are checked after substitution",
		t: &templates.Template{Transformers: raws(t,
			"{kind: ReplicaCountTransformer, replica: {name: '${NAME}', count: '${{REPLICAS}}'}}",
			"{kind: PatchTransformer, target: {name: '${APP}-(', labelSelector: 'env in ($(ENV)'}, patch: '${PATCH}'}",
			"{kind: NamespaceTransformer, metadata: {namespace: '${NAMESPACE}'}}",
			"{kind: LabelTransformer, labels: {app: '${APP}'}}",
			"{kind: PrefixSuffixTransformer, metadata: {name: '${NAME}'}, prefix: '${P}'}")},
	}, {
		name: "forbidden fields stay forbidden with parameters",
		t: &templates.Template{Transformers: raws(t,
			"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, resources: ['${URL}']}")},
		want: []string{"transformers[0].resources"},
	}, {
		name: "order without imports",
		t: &templates.Template{
			Transformers:     raws(t, "{kind: LabelTransformer, labels: {a: b}}", "{kind: AnnotationsTransformer}"),
			TransformerOrder: []templates.TransformerReference{{Name: "label-transformer"}, {Name: "nope"}, {Name: "label-transformer"}},
		},
		want: []string{"transformerOrder[1].name", "transformerOrder[2].name", "transformerOrder"},
	}, {
		name: "overrides and self-import",
		t: &templates.Template{
			TransformersFrom:     []templates.TransformerImport{{Name: "me"}},
			TransformerOverrides: raws(t, "{kind: Unknown}", "{metadata: {name: x}}", "{kind: LabelTransformer, labels: {a: b}}"),
		},
		want: []string{"transformerOverrides[0].kind", "transformerOverrides[1].kind", "transformersFrom[0].name"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.t.Name = "me"
			errs := testKinds.ValidateTransformers(plugin.Policy{}, tc.t)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("fields:\n got %q\nwant %q\n%v", got, tc.want, errs.ToAggregate())
			}
		})
	}
}
