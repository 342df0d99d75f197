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

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// The equivalence tests run the same transformation through our built-ins and through
// Kustomize's krusty (the kustomization fields, not its transformers: list), and compare the
// objects. Our transformers are listed in the order Kustomize runs its fields: patches,
// namespace, prefix/suffix, labels, annotations, replicas, images.

func TestEquivalenceWithKrusty(t *testing.T) {
	for _, tc := range []struct {
		name          string
		objects       string // YAML; equivalenceObjects by default
		kustomization string // kustomization fields, without resources
		transformers  []string
	}{{
		name:          "prefix and suffix with references",
		kustomization: "namePrefix: p-\nnameSuffix: -s",
		transformers:  []string{"{kind: PrefixSuffixTransformer, prefix: p-, suffix: -s}"},
	}, {
		name:          "labels with selectors (commonLabels)",
		kustomization: "labels: [{pairs: {team: platform, env: prod}, includeSelectors: true}]",
		transformers:  []string{"{kind: LabelTransformer, labels: {team: platform, env: prod}}"},
	}, {
		name:          "labels without selectors",
		kustomization: "labels: [{pairs: {team: platform}, includeTemplates: true}]",
		transformers:  []string{"{kind: LabelTransformer, labels: {team: platform}, includeSelectors: false}"},
	}, {
		name:          "annotations",
		kustomization: "commonAnnotations: {owner: team-a}",
		transformers:  []string{"{kind: AnnotationsTransformer, annotations: {owner: team-a}}"},
	}, {
		name: "images",
		kustomization: `images:
- {name: nginx, newName: registry.example.com/nginx, newTag: "1.25"}
- {name: busybox, digest: "sha256:feedface"}
- {name: postgres, newTag: "16"}`,
		transformers: []string{
			"{kind: ImageTagTransformer, metadata: {name: i1}, imageTag: {name: nginx, newName: registry.example.com/nginx, newTag: '1.25'}}",
			"{kind: ImageTagTransformer, metadata: {name: i2}, imageTag: {name: busybox, digest: 'sha256:feedface'}}",
			"{kind: ImageTagTransformer, metadata: {name: i3}, imageTag: {name: postgres, newTag: '16'}}",
		},
	}, {
		name:          "namespace",
		kustomization: "namespace: prod",
		transformers:  []string{"{kind: NamespaceTransformer, metadata: {namespace: prod}}"},
	}, {
		name: "namespace with objects of other namespaces",
		objects: `
apiVersion: v1
kind: Namespace
metadata: {name: old}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: old}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: x}
subjects: [{kind: ServiceAccount, name: sa, namespace: old}, {kind: ServiceAccount, name: other, namespace: old}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.example.com}
spec: {service: {name: api, namespace: old}, group: example.com, version: v1}
`,
		kustomization: "namespace: prod",
		transformers:  []string{"{kind: NamespaceTransformer, metadata: {namespace: prod}}"},
	}, {
		name:          "replicas",
		kustomization: "replicas: [{name: app1-web, count: 5}, {name: db, count: 3}]",
		transformers: []string{
			"{kind: ReplicaCountTransformer, metadata: {name: r1}, replica: {name: app1-web, count: 5}}",
			"{kind: ReplicaCountTransformer, metadata: {name: r2}, replica: {name: db, count: 3}}",
		},
	}, {
		name: "patch: one field for all Deployments",
		kustomization: `patches:
- target: {kind: Deployment}
  patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: any}
    spec: {revisionHistoryLimit: 2, template: {spec: {terminationGracePeriodSeconds: 10}}}`,
		transformers: []string{"{kind: PatchTransformer, target: {kind: Deployment}, patch: {spec: {revisionHistoryLimit: 2, template: {spec: {terminationGracePeriodSeconds: 10}}}}}"},
	}, {
		name: "patch: sidecar into Deployments app1-.* with env=dev",
		kustomization: `patches:
- target: {group: apps, version: v1, kind: Deployment, name: app1-.*, labelSelector: env=dev}
  patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: any}
    spec:
      template:
        spec:
          containers:
          - {name: main, env: [{name: SIDE, value: "1"}]}
          - {name: proxy, image: envoy, ports: [{containerPort: 9901}]}`,
		transformers: []string{`
kind: PatchTransformer
target: {group: apps, version: v1, kind: Deployment, name: app1-.*, labelSelector: env=dev}
patch: |
  spec:
    template:
      spec:
        containers:
        - {name: main, env: [{name: SIDE, value: "1"}]}
        - {name: proxy, image: envoy, ports: [{containerPort: 9901}]}
`},
	}, {
		name: "patch: JSON 6902 by annotation selector",
		kustomization: `patches:
- target: {annotationSelector: team=a}
  patch: |
    - {op: add, path: /metadata/labels/patched, value: "yes"}
    - {op: replace, path: /spec/replicas, value: 9}`,
		transformers: []string{"{kind: PatchTransformer, target: {annotationSelector: team=a}, patch: '[{\"op\": \"add\", \"path\": \"/metadata/labels/patched\", \"value\": \"yes\"}, {\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 9}]'}"},
	}, {
		name: "patch: delete and list directives",
		kustomization: `patches:
- target: {kind: CronJob}
  patch: |
    apiVersion: batch/v1
    kind: CronJob
    metadata: {name: any}
    $patch: delete
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: app1-web}
    spec:
      template:
        spec:
          volumes:
          - {name: sec, $patch: delete}`,
		transformers: []string{
			"{kind: PatchTransformer, metadata: {name: p1}, target: {kind: CronJob}, patch: {$patch: delete}}",
			"{kind: PatchTransformer, metadata: {name: p2}, patch: {apiVersion: apps/v1, kind: Deployment, metadata: {name: app1-web}, spec: {template: {spec: {volumes: [{name: sec, $patch: delete}]}}}}}",
		},
	}, {
		name: "everything together",
		kustomization: `namespace: prod
namePrefix: p-
labels: [{pairs: {team: platform}, includeSelectors: true}]
commonAnnotations: {owner: a}
replicas: [{name: app2-api, count: 2}]
images: [{name: nginx, newTag: "1.25"}]
patches:
- target: {kind: Deployment, name: app1-.*}
  patch: '[{"op": "add", "path": "/spec/paused", "value": true}]'`,
		transformers: []string{
			"{kind: PatchTransformer, target: {kind: Deployment, name: app1-.*}, patch: '[{\"op\": \"add\", \"path\": \"/spec/paused\", \"value\": true}]'}",
			"{kind: NamespaceTransformer, metadata: {namespace: prod}}",
			"{kind: PrefixSuffixTransformer, prefix: p-}",
			"{kind: LabelTransformer, labels: {team: platform}}",
			"{kind: AnnotationsTransformer, annotations: {owner: a}}",
			"{kind: ReplicaCountTransformer, replica: {name: app2-api, count: 2}}",
			"{kind: ImageTagTransformer, imageTag: {name: nginx, newTag: '1.25'}}",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			objectsYAML := tc.objects
			if objectsYAML == "" {
				objectsYAML = equivalenceObjects
			}
			objects := transformtest.YAMLDocs(t, objectsYAML)
			raw, err := jsonbytes.EncodeObjects(objects)
			if err != nil {
				t.Fatal(err)
			}

			fSys := filesys.MakeFsInMemory()
			kust := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [objects.yaml]\n" + tc.kustomization + "\n"
			if err := fSys.WriteFile("/k/kustomization.yaml", []byte(kust)); err != nil {
				t.Fatal(err)
			}
			var docs []string
			for _, r := range raw {
				docs = append(docs, string(r))
			}
			if err := fSys.WriteFile("/k/objects.yaml", []byte(strings.Join(docs, "\n---\n"))); err != nil {
				t.Fatal(err)
			}
			want := krustyObjects(t, fSys, "/k")

			tm := &templates.Template{}
			for _, c := range tc.transformers {
				tm.Transformers = append(tm.Transformers, runtime.RawExtension{Raw: transformtest.YAMLJSON(t, c)})
			}
			if errs := testKinds.ValidateTransformers(plugin.Policy{}, tm); len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			configs, errs := transform.Consolidate(tm, store())
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			p, errs := testKinds.Compile(plugin.Policy{}, configs)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			out, _, err := transformtest.RunPipeline(p, raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err := jsonbytes.DecodeObjects(out)
			if err != nil {
				t.Fatal(err)
			}
			transformtest.AssertObjects(t, got, want)

			// The same kustomization inline, through our Kustomization transformer.
			inline := map[string]any{}
			if err := json.Unmarshal(transformtest.YAMLJSON(t, kust), &inline); err != nil {
				t.Fatal(err)
			}
			delete(inline, "resources")
			inlineRaw, _ := json.Marshal(inline)
			kp, errs := testKinds.Compile(plugin.Policy{}, []transform.Config{{Raw: inlineRaw}})
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			out, _, err = transformtest.RunPipeline(kp, raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err = jsonbytes.DecodeObjects(out)
			if err != nil {
				t.Fatal(err)
			}
			transformtest.AssertObjects(t, got, want)
		})
	}
}
