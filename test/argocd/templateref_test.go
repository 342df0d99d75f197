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

package argocd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/test/localserver"
)

// TestTemplateRef renders render files that name a Template stored on a Stencil server by its
// revision's hash: a sidecar given read access (a kubeconfig) renders the pinned revision, the
// stored Template's later edits notwithstanding; a hash the server does not have, or the
// revision of a deleted Template, is refused; a sidecar without access refuses with the place
// of templateRef.
func TestTemplateRef(t *testing.T) {
	dir := t.TempDir()
	bins, err := localserver.Build(dir, "stencil.dev/stencil/cmd/stencil-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	server, err := localserver.New(bins[0], filepath.Join(dir, "server"))
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Stop() })
	client, err := clientset.NewForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	templates := client.TemplatesV1alpha1().Templates("shared")
	object := func(replicas string) runtime.RawExtension {
		return runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"replicas":"` + replicas + `"}}`)}
	}
	created, err := templates.Create(ctx, &v1alpha1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "cache"},
		Parameters: []v1alpha1.Parameter{{Name: "NAME", Value: "cache"}},
		Objects:    []runtime.RawExtension{object("1")},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pinned := created.Revision.Hash
	// A later edit makes a new revision; the render file stays on the one it pins.
	created.Objects = []runtime.RawExtension{object("9")}
	if _, err := templates.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A sidecar of its own, with read access: the same plugin.yaml under another name, so
	// that the applications below name it.
	config := filepath.Join(dir, "plugin")
	plugin, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "argocd", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(config, 0o755); err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(plugin), "name: stencil\n", "name: stencil-cluster\n", 1)
	if err := os.WriteFile(filepath.Join(config, "plugin.yaml"), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	sidecar, err := env.startSidecar("stencil-cluster-v1", config, []string{"KUBECONFIG=" + server.Kubeconfig()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sidecar.kill()
		env.sidecars = env.sidecars[:len(env.sidecars)-1]
		_ = os.Remove(filepath.Join(env.sockets, "stencil-cluster-v1.sock"))
	})

	ref := func(hash string) string {
		return "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nmetadata: {name: cache}\nspec:\n" +
			"  templateRef:\n    namespace: shared\n    name: cache\n    hash: " + hash + "\n  parameters: {NAME: prod-cache}\n"
	}
	unknown := "sha256:" + strings.Repeat("0", 64)
	repo, sha := newRepo(t, map[string]string{
		"pinned/stencil-render.yaml":  ref(pinned),
		"unknown/stencil-render.yaml": ref(unknown),
	})
	withAccess := func(path string) app {
		return app{name: path, repo: repo, revision: sha, path: path, plugin: &pluginSource{Name: "stencil-cluster-v1"}}
	}
	objs := objects(t, withAccess("pinned").generate())
	if len(objs) != 1 || objs[0]["metadata"].(map[string]any)["name"] != "prod-cache" || objs[0]["data"].(map[string]any)["replicas"] != "1" {
		t.Errorf("the pinned revision rendered %v", objs)
	}
	failing(t, withAccess("unknown"), `stencil-render.yaml:5:3: error: spec\.templateRef: .*has no revision of hash `+unknown+`$`)
	// Once the Template is deleted, its revisions go with it: the render file names nothing.
	if err := templates.Delete(ctx, "cache", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	failing(t, withAccess("pinned"), `stencil-render.yaml:5:3: error: spec\.templateRef: .*(has no revision of hash|no longer owned)`)
	// The stencil sidecar of the other tests has no access to any cluster.
	failing(t, app{name: "no-access", repo: repo, revision: sha, path: "pinned", plugin: &pluginSource{Name: "stencil-v1"}},
		`stencil-render.yaml:5:3: error: spec\.templateRef: .*needs access to its cluster`)
}
