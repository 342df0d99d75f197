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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// TestConditionalObjectsComposeWithTransformers runs a stored template whose Secret exists
// only with TLS and whose ConfigMaps repeat per zone through object labels, a prefix and
// labels transformer and their name-reference fix-ups: the Deployment's references follow
// the objects that are there, a dropped object leaves the other objects' references as they
// were, and each zone's object gets its distinct name and every label.
func TestConditionalObjectsComposeWithTransformers(t *testing.T) {
	tmpl := &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "app", UID: "u9", ResourceVersion: "1"},
		Parameters: []templates.Parameter{
			{Name: "TLS", Type: "bool", Value: "false"},
			{Name: "ZONES", Type: "json", Value: `["eu-1","eu-2","us-1"]`, Items: &templates.JSONValueSchema{Type: "string"}, MaxItems: ptrTo(int64(8))},
		},
		ObjectLabels: map[string]string{"app": "web"},
		Transformers: raw(`{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","prefix":"p-"}`,
			`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"team":"a"}}`),
		Objects: raw(
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","annotations":{"templates.stencil.dev/include-when":"params.TLS"}}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"zone-${ITEM}","annotations":{"templates.stencil.dev/for-each":"params.ZONES"}},"data":{"zone":"${ITEM}"}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"c":"web"}},"template":{"metadata":{"labels":{"c":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}],
			  "volumes":[{"name":"tls","secret":{"secretName":"tls"}},{"name":"zone","configMap":{"name":"zone-eu-1"}}]}}}}`),
	}
	r := NewRenderer(Options{})
	for round, tls := range []string{"true", "false", "true", "false"} { // rounds 3 and 4 run the cached plan
		out, errs, err := r.Render(context.Background(), Input{Template: tmpl, Stored: true, Request: process.Request{Parameters: map[string]string{"TLS": tls}}})
		if err != nil || len(errs) > 0 {
			t.Fatalf("round %d: %v %v", round, err, errs)
		}
		var names []string
		var deployment map[string]any
		for _, o := range out.Objects {
			var obj map[string]any
			if err := json.Unmarshal(o, &obj); err != nil {
				t.Fatal(err)
			}
			meta := obj["metadata"].(map[string]any)
			labels, _ := meta["labels"].(map[string]any)
			if labels["app"] != "web" || labels["team"] != "a" {
				t.Errorf("round %d: %s lacks a label: %s", round, meta["name"], o)
			}
			if _, ok := meta["annotations"]; ok {
				t.Errorf("round %d: the annotations reached the output: %s", round, o)
			}
			names = append(names, meta["name"].(string))
			if obj["kind"] == "Deployment" {
				deployment = obj
			}
		}
		want := []string{"p-zone-eu-1", "p-zone-eu-2", "p-zone-us-1", "p-web"}
		if tls == "true" {
			want = append([]string{"p-tls"}, want...)
		}
		if len(names) != len(want) {
			t.Fatalf("round %d: objects %q, want %q", round, names, want)
		}
		for i := range want {
			if names[i] != want[i] {
				t.Fatalf("round %d: objects %q, want %q", round, names, want)
			}
		}
		volumes := deployment["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["volumes"].([]any)
		secretName := volumes[0].(map[string]any)["secret"].(map[string]any)["secretName"]
		configMap := volumes[1].(map[string]any)["configMap"].(map[string]any)["name"]
		wantSecret := "tls" // no Secret to follow: the reference stays as written
		if tls == "true" {
			wantSecret = "p-tls"
		}
		if secretName != wantSecret || configMap != "p-zone-eu-1" {
			t.Errorf("round %d: references secret %v configMap %v, want %s and p-zone-eu-1", round, secretName, configMap, wantSecret)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
