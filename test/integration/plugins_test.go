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
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

const annotateScript = `
for item in ctx.resource_list["items"]:
    item["metadata"].setdefault("annotations", {})["owner"] = ctx.resource_list["functionConfig"]["spec"]["owner"]
`

func starlarkTemplate(name, source string) *templatesv1.Template {
	tpl := newTemplate(name, nil)
	tpl.Parameters = append(tpl.Parameters, templatesv1.Parameter{Name: "OWNER", Value: "team-a"})
	tpl.Transformers = rawObjects(`{"apiVersion":"example.com/v1","kind":"Annotate","metadata":{"name":"owner"},` +
		`"provider":{"starlark":{"source":` + quote(source) + `}},"spec":{"owner":"${OWNER}"}}`)
	return tpl
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// TestStarlarkPolicyThroughTheServer runs a server that allows Starlark in one namespace: a
// template with a Starlark transformer is refused in another with a 422 naming the provider,
// and runs where allowed, with the policy in a warning; a script that loops forever is a 422
// naming the transformer and the limit.
func TestStarlarkPolicyThroughTheServer(t *testing.T) {
	s := startTestServer(t, filepath.Join(t.TempDir(), "starlark"), "--starlark-namespaces=scripts", "--starlark-max-steps=100000")
	ctx := context.Background()
	recorder := &warningRecorder{}
	config := rest.CopyConfig(s.Config)
	config.WarningHandler = recorder
	client, err := clientset.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}

	_, err = client.TemplatesV1alpha1().Templates("other").Create(ctx, starlarkTemplate("annotate", annotateScript), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "transformers[0].provider.starlark") ||
		!strings.Contains(err.Error(), "the starlark provider is not enabled on this server: an administrator must enable it") {
		t.Fatalf("want a 422 naming the disabled provider, got %v", err)
	}

	templates := client.TemplatesV1alpha1().Templates("scripts")
	if _, err := templates.Create(ctx, starlarkTemplate("annotate", annotateScript), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := templates.Process(ctx, "annotate", &templatesv1.TemplateParameters{Parameters: map[string]string{"OWNER": "team-b"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeItems(t, list.Items)
	if owner := dig(objs[0].(map[string]any), "metadata", "annotations", "owner"); owner != "team-b" {
		t.Fatalf("the script did not annotate with the parameter: %v", owner)
	}
	if w := strings.Join(recorder.warnings, "\n"); !strings.Contains(w, "plugin providers enabled in this namespace: starlark") {
		t.Fatalf("no warning with the namespace's policy in %q", w)
	}

	if _, err := templates.Create(ctx, starlarkTemplate("loop", "while True:\n    pass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = templates.Process(ctx, "loop", &templatesv1.TemplateParameters{}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `transformers[owner]`) || !strings.Contains(err.Error(), "passed its step limit") {
		t.Fatalf("want a 422 naming the transformer and the step limit, got %v", err)
	}
}

// TestPluginsRefusedByDefault: the shared server runs with no plugin flag, so a template with
// an exec transformer, a container transformer, a seed 000 generator or a Starlark
// transformer is refused at create, each naming its provider.
func TestPluginsRefusedByDefault(t *testing.T) {
	tpl := newTemplate("plugins", nil)
	tpl.Generators = rawObjects(`{"apiVersion":"team.example.com/v1","kind":"App","metadata":{"name":"app"}}`)
	tpl.Transformers = rawObjects(
		`{"apiVersion":"fn.example.com/v1","kind":"A","metadata":{"name":"a"},"provider":{"exec":{"path":"annotate"}}}`,
		`{"apiVersion":"fn.example.com/v1","kind":"B","metadata":{"name":"b"},"provider":{"container":{"image":"example/fn:v1"}}}`,
		`{"apiVersion":"fn.example.com/v1","kind":"C","metadata":{"name":"c"},"provider":{"starlark":{"source":"pass"}}}`)
	_, err := shared.client(t).TemplatesV1alpha1().Templates("plugins").Create(context.Background(), tpl, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422, got %v", err)
	}
	for _, want := range []string{"generators[0].apiVersion", "transformers[0].provider.exec", "transformers[1].provider.container", "transformers[2].provider.starlark"} {
		if !strings.Contains(err.Error(), want+": Forbidden: the ") {
			t.Errorf("no refusal at %s in %v", want, err)
		}
	}
}
