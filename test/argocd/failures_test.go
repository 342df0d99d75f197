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
	"regexp"
	"strings"
	"testing"
)

// failing asserts that generating a fails as Argo CD must see a failure: an error, and no
// manifests, so that the controller reports a ComparisonError and prunes nothing; and that
// the error carries each of the diagnostics wanted (regular expressions), which Argo CD shows.
func failing(t *testing.T, a app, wants ...string) {
	t.Helper()
	res := a.generate()
	if res.Error == "" {
		t.Fatalf("GenerateManifest succeeded with %d manifests; want a failure", len(res.Manifests))
	}
	if len(res.Manifests) > 0 {
		t.Errorf("a failed render gave %d manifests", len(res.Manifests))
	}
	for _, w := range wants {
		if !regexp.MustCompile(w).MatchString(res.Error) {
			t.Errorf("the error lacks %q:\n%s", w, res.Error)
		}
	}
	shown := res.Error
	if len(shown) > 600 {
		shown = shown[:600] + "..."
	}
	t.Logf("Argo CD shows: %s", shown)
}

const emptyTemplate = "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: empty}\nobjects: []\n"

// TestFailures checks that a render that cannot give the application's objects fails, with
// FILE:LINE:COL: error: diagnostics, and never gives Argo CD an empty list to prune by.
func TestFailures(t *testing.T) {
	files := map[string]string{
		"apps/empty/template.yaml":         emptyTemplate,
		"apps/empty/stencil-render.yaml":   renderFile("empty", "template.yaml", nil, ""),
		"apps/allowed/template.yaml":       emptyTemplate,
		"apps/allowed/stencil-render.yaml": renderFile("allowed", "template.yaml", nil, "  allowEmpty: true\n"),
		// An undeclared parameter and a value of the wrong type.
		"apps/bad/template.yaml": "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: bad}\n" +
			"parameters:\n- {name: PORT, type: int, value: eighty}\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n" +
			"  metadata: {name: x}\n  data: {a: \"${UNDECLARED}\"}\n",
		"apps/bad/stencil-render.yaml":     renderFile("bad", "template.yaml", nil, ""),
		"apps/syntax/template.yaml":        "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nobjects:\n  - a: [\n",
		"apps/syntax/stencil-render.yaml":  renderFile("syntax", "template.yaml", nil, ""),
		"apps/outside/stencil-render.yaml": renderFile("outside", "../bad/template.yaml", nil, ""),
		"apps/linked/template.yaml":        symlinkPrefix + "../bad/template.yaml",
		"apps/linked/stencil-render.yaml":  renderFile("linked", "template.yaml", nil, ""),
		"apps/typo/stencil-render.yaml":    renderFile("typo", "template.yaml", nil, "  paramters: {A: b}\n"),
		"apps/typo/template.yaml":          emptyTemplate,
	}
	repo, sha := newRepo(t, files)
	at := func(path string) app {
		return app{name: strings.ReplaceAll(path, "/", "-"), repo: repo, revision: sha, path: path}
	}

	t.Run("empty render", func(t *testing.T) {
		failing(t, at("apps/empty"), `stencil-render.yaml:\d+:\d+: error: spec: .*rendered no objects`)
		if objs := objects(t, at("apps/allowed").generate()); len(objs) != 0 {
			t.Errorf("allowEmpty rendered %d objects", len(objs))
		}
	})
	t.Run("bad template", func(t *testing.T) {
		failing(t, at("apps/bad"), `template.yaml:5:\d+: error: parameters\[0\]\.value: .*must be an integer`,
			`template.yaml:10:\d+: error: objects\[0\]\.data\.a: .*UNDECLARED`)
		failing(t, at("apps/syntax"), `template.yaml:(\d+):1: error: .*yaml: line \d+`)
	})
	t.Run("path outside the application", func(t *testing.T) {
		failing(t, at("apps/outside"), `stencil-render.yaml:6:3: error: spec\.templateFile: .*\.\. is refused`)
		failing(t, at("apps/linked"), `stencil-render.yaml:6:3: error: spec\.templateFile: .*leads out of the render file's directory`)
	})
	t.Run("unknown field", func(t *testing.T) {
		failing(t, at("apps/typo"), `stencil-render.yaml:7:3: error: spec\.paramters: Forbidden: unknown field`)
	})
}

// TestSymlinkOutOfTheRepository checks that a render file whose template is a symbolic link
// out of the repository is refused: Argo CD refuses the checkout itself, and the plugin, run
// on such files anyway (stencil render), refuses the link (pkg/gitops TestConfinement).
func TestSymlinkOutOfTheRepository(t *testing.T) {
	repo, sha := newRepo(t, map[string]string{
		"app/template.yaml":       symlinkPrefix + "/etc/passwd",
		"app/stencil-render.yaml": renderFile("escape", "template.yaml", nil, ""),
	})
	failing(t, app{name: "escape", repo: repo, revision: sha, path: "app"}, `out-of-bounds symlink`)
}
