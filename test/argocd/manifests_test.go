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
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// TestShippedManifests builds Argo CD's own install manifest (of the version the tests run)
// with the shipped Component, as docs/gitops.md installs the plugin, and checks what a stock
// Argo CD then runs: argocd-repo-server with a stencil sidecar that starts Argo CD's
// argocd-cmp-server as user 999, with Argo CD's plugins and var-files volumes, a /tmp of its
// own, and the ConfigMap holding exactly the plugin.yaml these tests run.
func TestShippedManifests(t *testing.T) {
	// Beside Argo CD's install.yaml (hack/build-argocd-binaries.sh copies it there): Kustomize
	// takes relative paths only.
	dir := filepath.Join(repoRoot, "_output", "argocd", "with-plugin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	kustomization := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\n" +
		"resources: [../install.yaml]\ncomponents: [../../../artifacts/argocd]\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	resources, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build of Argo CD's install.yaml with artifacts/argocd: %v", err)
	}
	var repoServer appsv1.Deployment
	var pluginConfig corev1.ConfigMap
	for _, r := range resources.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.GetKind() == "Deployment" && r.GetName() == "argocd-repo-server":
			err = yaml.UnmarshalStrict(data, &repoServer)
		case r.GetKind() == "ConfigMap" && r.GetName() == "stencil-cmp-plugin":
			err = yaml.UnmarshalStrict(data, &pluginConfig)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	plugin, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "argocd", "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if pluginConfig.Data["plugin.yaml"] != string(plugin) || pluginConfig.Namespace != "argocd" {
		t.Errorf("ConfigMap stencil-cmp-plugin in %q holds %q; want plugin.yaml in argocd", pluginConfig.Namespace, pluginConfig.Data)
	}
	pod := repoServer.Spec.Template.Spec
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	var sidecar *corev1.Container
	for i := range pod.Containers {
		if pod.Containers[i].Name == "stencil" {
			sidecar = &pod.Containers[i]
		}
	}
	if sidecar == nil || len(pod.Containers) != 2 {
		t.Fatalf("argocd-repo-server has containers %v; want repo-server and the stencil sidecar", pod.Containers)
	}
	if !slices.Equal(sidecar.Command, []string{"/var/run/argocd/argocd-cmp-server"}) {
		t.Errorf("the sidecar runs %v, not Argo CD's argocd-cmp-server", sidecar.Command)
	}
	if sc := sidecar.SecurityContext; sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != 999 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("the sidecar's security context %+v: Argo CD's sidecars run as user 999", sidecar.SecurityContext)
	}
	mounts := map[string]string{}
	for _, m := range sidecar.VolumeMounts {
		mounts[m.MountPath] = m.Name
		if _, ok := volumes[m.Name]; !ok {
			t.Errorf("the sidecar mounts %s, which the pod lacks", m.Name)
		}
	}
	for path, volume := range map[string]string{
		"/var/run/argocd":                            "var-files",
		"/home/argocd/cmp-server/plugins":            "plugins",
		"/home/argocd/cmp-server/config/plugin.yaml": "stencil-cmp-plugin",
		"/tmp": "stencil-cmp-tmp",
	} {
		if mounts[path] != volume {
			t.Errorf("the sidecar mounts %q at %s, want %q", mounts[path], path, volume)
		}
	}
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if c.Name != "stencil" && m.Name == "stencil-cmp-tmp" {
				t.Errorf("%s shares the sidecar's /tmp", c.Name)
			}
		}
	}
	// Generated values derive from the seed the docs install as Secret stencil-generate-seed,
	// key seed: the sidecar must read that very file, or every render that generates refuses.
	checkSeedMount(t, sidecar, volumes)
	var cfg struct {
		Spec struct {
			Discover struct {
				FileName string         `json:"fileName"`
				Find     map[string]any `json:"find"`
			} `json:"discover"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(plugin, &cfg); err != nil {
		t.Fatal(err)
	}
	// Discovery looks for one name in the application's directory: no glob to match against
	// every file, no command that would walk the repository.
	if d := cfg.Spec.Discover; d.FileName != "stencil-render.yaml" || strings.ContainsAny(d.FileName, "*?[\\") || d.Find != nil {
		t.Errorf("discovery %+v: want fileName stencil-render.yaml only", d)
	}
	// The example install pins the same Argo CD as these tests.
	example, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "argocd", "install", "kustomization.yaml"))
	if err != nil || !strings.Contains(string(example), "argo-cd/v3.6.2/manifests/install.yaml") {
		t.Errorf("artifacts/argocd/install installs another Argo CD than v3.6.2: %v", err)
	}
}

// checkSeedMount checks that the sidecar's STENCIL_GENERATE_SEED_FILE is the key of the Secret
// docs/gitops.md creates, mounted into the sidecar, and that the docs create it so.
func checkSeedMount(t *testing.T, sidecar *corev1.Container, volumes map[string]corev1.Volume) {
	t.Helper()
	const secret, key = "stencil-generate-seed", "seed"
	var file string
	for _, e := range sidecar.Env {
		if e.Name == "STENCIL_GENERATE_SEED_FILE" {
			file = e.Value
		}
	}
	found := false
	for _, m := range sidecar.VolumeMounts {
		v := volumes[m.Name]
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		found = true
		if file != path.Join(m.MountPath, key) {
			t.Errorf("STENCIL_GENERATE_SEED_FILE is %q; the Secret %s is mounted at %s: want %s", file, secret, m.MountPath, path.Join(m.MountPath, key))
		}
		if !m.ReadOnly {
			t.Errorf("the seed is mounted writable")
		}
	}
	if !found {
		t.Errorf("the sidecar mounts no Secret %s (STENCIL_GENERATE_SEED_FILE %q)", secret, file)
	}
	docs, err := os.ReadFile(filepath.Join(repoRoot, "docs", "gitops.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`create secret generic ` + secret + `[\\\s]+--from-literal=` + key + `=`).Match(docs) {
		t.Errorf("docs/gitops.md does not create Secret %s with key %s", secret, key)
	}
}
