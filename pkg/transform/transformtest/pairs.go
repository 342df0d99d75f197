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

// Package transformtest holds what the tests of the transformer packages share: the helpers
// that read YAML objects, run table tests of a transformer and compare objects (helpers.go),
// and the workload the transformer benchmarks share, so that the in-process pipeline, krusty
// and the whole-process CLI comparison measure the same thing: N Deployment+Service pairs
// given a prefix, labels with selectors, an image override and one patch of the web
// Deployments. Only tests import it.
package transformtest

import (
	"encoding/json"
	"fmt"
)

// Kustomization is the kustomize side of the workload; labels with includeSelectors is
// commonLabels without its deprecation warning.
const Kustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [objects.yaml]
namePrefix: prod-
labels: [{pairs: {team: platform, env: prod}, includeSelectors: true}]
images: [{name: nginx, newName: registry.example.com/nginx, newTag: "1.25.3"}]
patches:
- target: {group: apps, kind: Deployment, name: app-.*, labelSelector: tier=web}
  patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: placeholder}
    spec:
      template:
        spec:
          containers:
          - name: proxy
            image: envoyproxy/envoy:v1.30
            ports: [{containerPort: 9901}]
`

// Transformers is the same as Stencil's transformer list, in Kustomize's order.
var Transformers = []string{
	`{"apiVersion":"builtin","kind":"PatchTransformer","target":{"group":"apps","kind":"Deployment","name":"app-.*","labelSelector":"tier=web"},"patch":{"spec":{"template":{"spec":{"containers":[{"name":"proxy","image":"envoyproxy/envoy:v1.30","ports":[{"containerPort":9901}]}]}}}}}`,
	`{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","prefix":"prod-"}`,
	`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"team":"platform","env":"prod"}}`,
	`{"apiVersion":"builtin","kind":"ImageTagTransformer","imageTag":{"name":"nginx","newName":"registry.example.com/nginx","newTag":"1.25.3"}}`,
}

// Pairs returns n Deployment+Service pairs as JSON objects; every other Deployment is a
// tier=web one that the patch selects.
func Pairs(n int) []json.RawMessage {
	out := make([]json.RawMessage, 0, 2*n)
	for i := range n {
		tier := "web"
		if i%2 == 1 {
			tier = "worker"
		}
		out = append(out, json.RawMessage(fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"app-%[1]d","labels":{"app":"app-%[1]d","tier":"%[2]s"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"app-%[1]d"}},"template":{"metadata":{"labels":{"app":"app-%[1]d","tier":"%[2]s"}},"spec":{"containers":[{"name":"main","image":"nginx:1.21","ports":[{"containerPort":8080,"name":"http"}],"env":[{"name":"INDEX","value":"%[1]d"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}}}}`, i, tier)),
			json.RawMessage(fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"app-%[1]d","labels":{"app":"app-%[1]d"}},"spec":{"selector":{"app":"app-%[1]d"},"ports":[{"port":80,"targetPort":"http"}]}}`, i)))
	}
	return out
}
