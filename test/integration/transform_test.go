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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestTransformersThroughTheServer stores a three-level import chain and processes the last
// template: imported transformers run first, overrides and the order apply, parameters reach
// the configs.
func TestTransformersThroughTheServer(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("transform")
	base := &templatesv1.Template{
		ObjectMeta:   metav1.ObjectMeta{Name: "base"},
		Transformers: rawObjects(`{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"team"},"labels":{"team":"a"}}`),
	}
	middle := &templatesv1.Template{
		ObjectMeta:       metav1.ObjectMeta{Name: "middle"},
		TransformersFrom: []templatesv1.TransformerImport{{Name: "base"}},
		Transformers:     rawObjects(`{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","metadata":{"name":"prefix"},"prefix":"mid-"}`),
	}
	app := &templatesv1.Template{
		ObjectMeta:           metav1.ObjectMeta{Name: "app"},
		Parameters:           []templatesv1.Parameter{{Name: "ENV", Value: "dev"}},
		TransformersFrom:     []templatesv1.TransformerImport{{Name: "middle"}},
		Transformers:         rawObjects(`{"apiVersion":"builtin","kind":"AnnotationsTransformer","metadata":{"name":"env"},"annotations":{"env":"${ENV}"}}`),
		TransformerOverrides: rawObjects(`{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"team"},"labels":{"team":"b"}}`),
		TransformerOrder:     []templatesv1.TransformerReference{{Name: "env"}, {Name: "prefix"}, {Name: "team"}},
		Objects: rawObjects(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"a":"1"}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx","envFrom":[{"configMapRef":{"name":"settings"}}]}]}}}}`),
	}
	for _, tpl := range []*templatesv1.Template{base, middle, app} {
		if _, err := client.Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", tpl.Name, err)
		}
	}
	list, err := client.Process(ctx, "app", &templatesv1.TemplateParameters{Parameters: map[string]string{"ENV": "prod"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeItems(t, list.Items)
	cm, deploy := objs[0].(map[string]any), objs[1].(map[string]any)
	if name := dig(cm, "metadata", "name"); name != "mid-settings" {
		t.Fatalf("prefix: %v", name)
	}
	if team := dig(deploy, "spec", "selector", "matchLabels", "team"); team != "b" {
		t.Fatalf("the override did not reach the imported label transformer: %v", team)
	}
	if env := dig(deploy, "metadata", "annotations", "env"); env != "prod" {
		t.Fatalf("the parameter did not reach the annotation: %v", env)
	}
	ref := deploy["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["envFrom"].([]any)[0]
	if name := dig(ref.(map[string]any), "configMapRef", "name"); name != "mid-settings" {
		t.Fatalf("the reference did not follow the rename: %v", name)
	}

	// An import cycle is refused when processing, naming the cycle.
	base.TransformersFrom = []templatesv1.TransformerImport{{Name: "app"}}
	got, err := client.Get(ctx, "base", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.TransformersFrom = base.TransformersFrom
	if _, err := client.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = client.Process(ctx, "app", &templatesv1.TemplateParameters{}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("want 422 naming the cycle, got %v", err)
	}
}

func TestInvalidTransformersRefused(t *testing.T) {
	tpl := newTemplate("bad-transformers", nil)
	tpl.Transformers = rawObjects(
		`{"apiVersion":"builtin","kind":"NoSuchTransformer"}`,
		`{"apiVersion":"builtin","kind":"PatchTransformer","patch":"[{\"op\":\"replace\",\"path\":\"/x\",\"value\":1}]","target":{"name":"(unclosed"}}`,
		`{"apiVersion":"builtin","kind":"PatchTransformer","patch":"- op: nope","target":{"kind":"Deployment","labelSelector":"a in (b"}}`,
	)
	_, err := shared.client(t).TemplatesV1alpha1().Templates("transform").Create(context.Background(), tpl, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422, got %v", err)
	}
	causes := strings.Join(causesOf(err), "\n")
	for _, want := range []string{"transformers[0].kind", "transformers[1].target.name", "transformers[2].target.labelSelector"} {
		if !strings.Contains(causes, want) {
			t.Errorf("no cause at %s in:\n%s", want, causes)
		}
	}
}

func dig(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
