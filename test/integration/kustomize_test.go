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

package integration

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

const kustomizeObjects = `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
---
apiVersion: v1
kind: Service
metadata: {name: app1-web, labels: {env: dev}}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app1-web, labels: {env: dev}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        envFrom: [{configMapRef: {name: settings}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app2-api, labels: {env: prod}}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: nginx:1.25}]
`

const sidecarPatch = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: any}
spec:
  template:
    spec:
      containers: [{name: proxy, image: envoy:1.30}]
`

// TestServerMatchesKustomizeBuild is issue 6's check: a stored template whose built-in
// transformers say what a kustomization says gives, through the server, the objects that
// kustomize build gives.
func TestServerMatchesKustomizeBuild(t *testing.T) {
	fSys := filesys.MakeFsInMemory()
	must(t, fSys.WriteFile("/app/objects.yaml", []byte(kustomizeObjects)))
	must(t, fSys.WriteFile("/app/sidecar.yaml", []byte(sidecarPatch)))
	must(t, fSys.WriteFile("/app/kustomization.yaml", []byte(`
resources: [objects.yaml]
namePrefix: team-
commonLabels: {owner: platform}
images: [{name: nginx, newTag: "1.27"}]
replicas: [{name: app1-web, count: 3}]
patches:
- path: sidecar.yaml
  target: {kind: Deployment, name: "app1-.*", labelSelector: "env=dev"}
`)))
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fSys, "/app")
	must(t, err)
	want := map[string]any{}
	for _, r := range resMap.Resources() {
		data, err := r.AsYAML()
		must(t, err)
		var obj map[string]any
		must(t, yaml.Unmarshal(data, &obj))
		want[r.GetKind()+"/"+r.GetName()] = obj
	}

	objects := splitYAML(t, kustomizeObjects)
	patchJSON, err := json.Marshal(sidecarPatch)
	must(t, err)
	tpl := &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "kustomized"},
		Objects:    rawObjects(objects...),
		// In the order kustomize runs its fields: patches, prefix, labels, replicas, images.
		Transformers: rawObjects(
			`{"apiVersion":"builtin","kind":"PatchTransformer","patch":`+string(patchJSON)+`,"target":{"kind":"Deployment","name":"app1-.*","labelSelector":"env=dev"}}`,
			`{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","prefix":"team-"}`,
			`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"owner":"platform"}}`,
			`{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replica":{"name":"app1-web","count":3}}`,
			`{"apiVersion":"builtin","kind":"ImageTagTransformer","imageTag":{"name":"nginx","newTag":"1.27"}}`,
		),
	}
	client := shared.client(t).TemplatesV1alpha1().Templates("kustomize")
	_, err = client.Create(context.Background(), tpl, metav1.CreateOptions{})
	must(t, err)
	list, err := client.Process(context.Background(), "kustomized", &templatesv1.TemplateParameters{}, metav1.CreateOptions{})
	must(t, err)
	got := map[string]any{}
	for _, item := range decodeItems(t, list.Items) {
		obj := item.(map[string]any)
		meta := obj["metadata"].(map[string]any)
		got[obj["kind"].(string)+"/"+meta["name"].(string)] = obj
	}
	if !reflect.DeepEqual(normalize(t, got), normalize(t, want)) {
		t.Fatalf("the server and kustomize build differ:\n server    %s\n kustomize %s", mustJSON(t, got), mustJSON(t, want))
	}
}

// normalize passes both sides through JSON, so that numbers compare alike.
func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	must(t, err)
	var out any
	must(t, json.Unmarshal(data, &out))
	return out
}

func splitYAML(t *testing.T, stream string) []string {
	t.Helper()
	var out []string
	for _, doc := range splitDocs(stream) {
		data, err := yaml.YAMLToJSON([]byte(doc))
		must(t, err)
		out = append(out, string(data))
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
