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

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestArgoCDTemplateRefRBAC runs a render file that names a stored Template (spec.templateRef)
// as the Argo CD plugin runs it in the repo-server's sidecar: as argocd-repo-server's service
// account, with only the access the shipped artifacts/argocd/templateref/rbac.yaml grants in one
// namespace of shared templates. It renders a revision there; it may not render one of
// another namespace, nor read the Templates themselves (their content may hold what a revision
// is not meant to show: only revisions are granted), nor Secrets of the namespace it may read.
func TestArgoCDTemplateRefRBAC(t *testing.T) {
	const shared, other, argocd = "e2e-shared-templates", "e2e-other-templates", "argocd"
	for _, ns := range []string{shared, other, argocd} {
		if _, err := env.kubectl("admin", "", "get", "namespace", ns); err != nil {
			mustKubectl(t, "admin", "", "create", "namespace", ns)
		}
	}
	mustKubectl(t, "admin", "", "create", "serviceaccount", "argocd-repo-server", "-n", argocd)
	mustKubectl(t, "admin", "", "apply", "-n", shared, "-f", filepath.Join(repoRoot, "artifacts", "argocd", "templateref", "rbac.yaml"))
	template := `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: cache}
parameters: [{name: NAME, value: cache}]
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: "${NAME}"}
  data: {replicas: "3"}
`
	hashes := map[string]string{}
	for _, ns := range []string{shared, other} {
		mustKubectl(t, "admin", template, "apply", "-n", ns, "-f", "-")
		hashes[ns] = strings.TrimSpace(mustKubectl(t, "admin", "", "get", "template", "cache", "-n", ns, "-o", "jsonpath={.revision.hash}"))
		if !strings.HasPrefix(hashes[ns], "sha256:") {
			t.Fatalf("Template %s/cache has revision hash %q", ns, hashes[ns])
		}
	}
	mustKubectl(t, "admin", "", "create", "secret", "generic", "db", "-n", shared, "--from-literal=password=hunter2hunter2")

	token := mustKubectl(t, "admin", "", "create", "token", "argocd-repo-server", "-n", argocd, "--duration=1h")
	const sidecar = "argocd-repo-server-sidecar"
	if err := env.writeKubeconfig(sidecar, &clientcmdapi.AuthInfo{Token: strings.TrimSpace(token)}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	render := func(ns string) string {
		file := filepath.Join(dir, ns, "stencil-render.yaml")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nmetadata: {name: cache}\nspec:\n" +
			"  templateRef:\n    namespace: " + ns + "\n    name: cache\n    hash: " + hashes[ns] + "\n  parameters: {NAME: prod-cache}\n"
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}

	out, stderr, _, err := env.stencil(sidecar, "render", "-f", render(shared))
	if err != nil || !strings.Contains(out, "name: prod-cache") || !strings.Contains(out, `replicas: "3"`) {
		t.Fatalf("the sidecar's render of %s/cache: %v\n%s%s", shared, err, out, stderr)
	}
	_, stderr, _, err = env.stencil(sidecar, "render", "-f", render(other))
	if err == nil || !strings.Contains(stderr, "spec.templateRef") || !strings.Contains(strings.ToLower(stderr), "forbidden") {
		t.Errorf("the sidecar rendered a revision of %s, where rbac.yaml grants nothing: %v\n%s", other, err, stderr)
	}
	for _, args := range [][]string{
		{"get", "templates", "-n", shared},
		{"get", "template", "cache", "-n", shared, "-o", "yaml"},
		{"get", "secret", "db", "-n", shared},
		{"get", "templaterevisions", "-n", other},
		{"create", "-n", shared, "-f", "-"},
	} {
		stdin := ""
		if args[0] == "create" {
			stdin = template
		}
		if out, err := env.kubectl(sidecar, stdin, args...); err == nil || !strings.Contains(err.Error()+out, "Forbidden") && !strings.Contains(err.Error()+out, "forbidden") {
			t.Errorf("the sidecar's account may %v: %v\n%s", args, err, out)
		}
	}
}
