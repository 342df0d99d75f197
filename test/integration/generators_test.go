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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestGeneratorsThroughTheServer stores a template whose generators take parameters, and
// processes it: the generated ConfigMap and Secret join the objects before the transformers,
// get Kustomize's hash suffix (which changes with the content), and the Deployment refers to
// the hashed names.
func TestGeneratorsThroughTheServer(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("generators")
	tpl := &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "app"},
		Parameters: []templatesv1.Parameter{{Name: "LEVEL", Value: "info"}, {Name: "PASSWORD", Value: "pw"}},
		Generators: rawObjects(
			`{"kind":"ConfigMapGenerator","metadata":{"name":"settings"},"literals":["LEVEL=${LEVEL}"],"envs":["REGION=eu\n"],"files":[{"key":"app.conf","content":"level=${LEVEL}\n"}]}`,
			`{"apiVersion":"builtin","kind":"SecretGenerator","metadata":{"name":"creds"},"literals":["password=${PASSWORD}"],"options":{"labels":{"app":"web"}}}`),
		Transformers: rawObjects(`{"kind":"PrefixSuffixTransformer","prefix":"p-"}`),
		Objects: rawObjects(
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx","envFrom":[{"configMapRef":{"name":"settings"}},{"secretRef":{"name":"creds"}}]}]}}}}`),
	}
	if _, err := client.Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	names := func(level string) (cm, secret, cmRef, secretRef string) {
		t.Helper()
		list, err := client.Process(ctx, "app", &templatesv1.TemplateParameters{Parameters: map[string]string{"LEVEL": level}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		objs := decodeItems(t, list.Items)
		if len(objs) != 3 {
			t.Fatalf("%d objects, want the Deployment and the two generated ones", len(objs))
		}
		deploy, cmObj, secretObj := objs[0].(map[string]any), objs[1].(map[string]any), objs[2].(map[string]any)
		if data := dig(cmObj, "data", "app.conf"); data != "level="+level+"\n" {
			t.Fatalf("the parameter did not reach the generated file: %v", data)
		}
		envFrom := dig(deploy, "spec", "template", "spec").(map[string]any)["containers"].([]any)[0].(map[string]any)["envFrom"].([]any)
		return dig(cmObj, "metadata", "name").(string), dig(secretObj, "metadata", "name").(string),
			dig(envFrom[0].(map[string]any), "configMapRef", "name").(string), dig(envFrom[1].(map[string]any), "secretRef", "name").(string)
	}
	cm, secret, cmRef, secretRef := names("info")
	if !strings.HasPrefix(cm, "p-settings-") || len(cm) != len("p-settings-")+10 || !strings.HasPrefix(secret, "p-creds-") {
		t.Fatalf("names %q and %q: want the prefix, then the hash suffix", cm, secret)
	}
	if cmRef != cm || secretRef != secret {
		t.Fatalf("references %q and %q, want %q and %q", cmRef, secretRef, cm, secret)
	}
	cm2, secret2, _, _ := names("debug")
	if cm2 == cm || secret2 != secret {
		t.Fatalf("a new level must change only the ConfigMap's suffix: %s %s -> %s %s", cm, secret, cm2, secret2)
	}
}

func TestInvalidGeneratorsRefused(t *testing.T) {
	tpl := newTemplate("bad-generators", nil)
	tpl.Generators = rawObjects(
		`{"kind":"ConfigMapGenerator","literals":["A"]}`,
		`{"kind":"SecretGenerator","metadata":{"name":"s"},"files":["key=/etc/passwd"]}`,
		`{"kind":"DeploymentGenerator","metadata":{"name":"d"}}`,
	)
	_, err := shared.client(t).TemplatesV1alpha1().Templates("generators").Create(context.Background(), tpl, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422, got %v", err)
	}
	causes := strings.Join(causesOf(err), "\n")
	for _, want := range []string{"generators[0].literals[0]", "generators[0].metadata.name", "generators[1].files[0]", "generators[2].kind"} {
		if !strings.Contains(causes, want) {
			t.Errorf("no cause at %s in:\n%s", want, causes)
		}
	}
}
