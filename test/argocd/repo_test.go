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
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitRepo is a git repository on disk, which Argo CD reads through its file:// URL.
type gitRepo struct {
	dir string
	url string
}

// symlinkPrefix marks a file of newRepo that is a symbolic link to the rest of the value.
const symlinkPrefix = "symlink:"

// newRepo makes a repository whose first commit holds files (path: content; a content
// starting with symlinkPrefix is a symbolic link).
func newRepo(t testing.TB, files map[string]string) (*gitRepo, string) {
	t.Helper()
	return newRepoAt(t, filepath.Join(t.TempDir(), "repo"), files)
}

// newRepoAt is newRepo in dir, which outlives the test.
func newRepoAt(t testing.TB, dir string, files map[string]string) (*gitRepo, string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &gitRepo{dir: dir, url: "file://" + dir}
	r.git(t, "init", "--quiet", "--initial-branch=main")
	return r, r.commit(t, files)
}

// commit writes files over the work tree and commits them; it returns the commit's SHA.
func (r *gitRepo) commit(t testing.TB, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(r.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(path)
		if target, ok := strings.CutPrefix(content, symlinkPrefix); ok {
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.git(t, "add", "--all")
	r.git(t, "commit", "--quiet", "--allow-empty", "-m", "render")
	return strings.TrimSpace(r.git(t, "rev-parse", "HEAD"))
}

func (r *gitRepo) git(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// app is an Application whose source is path of the repository at revision, rendered by the
// stencil plugin.
type app struct {
	name, namespace string
	repo            *gitRepo
	revision        string
	path            string
	plugin          *pluginSource
}

// generate asks the repository service for the application's manifests, as the application
// controller does on a hard refresh (no cache).
func (a app) generate() response {
	return env.driver.ask(a.request("generate"))
}

// details asks the repository service for the application's details, as the API server does
// for the Parameters tab.
func (a app) details() response {
	return env.driver.ask(a.request("appDetails"))
}

func (a app) request(op string) request {
	plugin := a.plugin
	if plugin == nil {
		plugin = &pluginSource{}
	}
	namespace := a.namespace
	if namespace == "" {
		namespace = "default"
	}
	return request{Op: op, Repo: a.repo.url, Revision: a.revision, Path: a.path, AppName: a.name, Namespace: namespace,
		Project: "default", Plugin: plugin, KubeVersion: "1.37.1", APIVersions: []string{"v1", "apps/v1", "batch/v1"}, NoCache: true}
}

// objects decodes the manifests of an answer, failing the test on an error.
func objects(t testing.TB, res response) []map[string]any {
	t.Helper()
	if res.Error != "" {
		t.Fatalf("GenerateManifest failed: %s: %s", res.Code, res.Error)
	}
	out := make([]map[string]any, len(res.Manifests))
	for i, m := range res.Manifests {
		if err := json.Unmarshal([]byte(m), &out[i]); err != nil {
			t.Fatalf("manifest %d: %v", i, err)
		}
	}
	return out
}

// renderFile writes a render file of the template file template with parameters.
func renderFile(name, template string, parameters map[string]string, extra string) string {
	var b strings.Builder
	b.WriteString("apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\n")
	if name != "" {
		b.WriteString("metadata:\n  name: " + name + "\n")
	}
	b.WriteString("spec:\n  templateFile: " + template + "\n")
	if len(parameters) > 0 {
		b.WriteString("  parameters:\n")
		for _, k := range slices.Sorted(maps.Keys(parameters)) {
			v, _ := json.Marshal(parameters[k])
			b.WriteString("    " + k + ": " + string(v) + "\n")
		}
	}
	b.WriteString(extra)
	return b.String()
}
