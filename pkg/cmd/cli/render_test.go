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

package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// digestLine is the line of the render digest annotation in stencil render's YAML.
var digestLine = regexp.MustCompile(`^(\s*)templates\.stencil\.dev/render-digest: (sha256:[0-9a-f]{64})$`)

// nullAnnotations is an annotations member written null.
var nullAnnotations = regexp.MustCompile(`(?m)^\s*annotations: null\n`)

// withoutDigest removes the render digest's lines from a List written as YAML (and the
// annotations: line it leaves empty) and returns the digests it found.
func withoutDigest(yamlList string) (string, []string) {
	lines := strings.Split(yamlList, "\n")
	var out, digests []string
	for i := 0; i < len(lines); i++ {
		m := digestLine.FindStringSubmatch(lines[i])
		if m == nil {
			out = append(out, lines[i])
			continue
		}
		digests = append(digests, m[2])
		// annotations: made for the digest alone is followed by a line less indented.
		prev := len(out) - 1
		annotationsIndent := len(m[1]) - 2
		if prev >= 0 && out[prev] == strings.Repeat(" ", annotationsIndent)+"annotations:" {
			next := ""
			if i+1 < len(lines) {
				next = lines[i+1]
			}
			if len(next)-len(strings.TrimLeft(next, " ")) <= annotationsIndent || strings.TrimSpace(next) == "" {
				out = out[:prev]
			}
		}
	}
	return strings.Join(out, "\n"), digests
}

// TestRenderFileCorpus renders every template of the corpus from a render file of its values
// (stencil render) and requires the bytes stencil process --local prints for the same template
// and values, but for the digest annotation, which must be the SHA-256 of that very List. make
// corpus runs it.
func TestRenderFileCorpus(t *testing.T) {
	for _, c := range readCorpus(t) {
		dir := t.TempDir()
		template := "template" + filepath.Ext(c.name)
		if err := os.WriteFile(filepath.Join(dir, template), c.template, 0o644); err != nil {
			t.Fatal(err)
		}
		var render strings.Builder
		render.WriteString("apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nspec:\n  templateFile: " + template + "\n  allowEmpty: true\n  parameters:\n")
		args := []string{"process", "--local", "-f", filepath.Join(dir, template)}
		for _, p := range c.params {
			k, v, _ := strings.Cut(p, "=")
			key, _ := json.Marshal(k)
			value, _ := json.Marshal(v)
			render.WriteString("    " + string(key) + ": " + string(value) + "\n")
			args = append(args, "-p", p)
		}
		if len(c.params) == 0 {
			render.WriteString("    {}\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "stencil-render.yaml"), []byte(render.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		rendered, stderr, code := run(t, "", "render", "-f", filepath.Join(dir, "stencil-render.yaml"))
		if code != 0 {
			t.Errorf("%s: stencil render: %s", c.name, stderr)
			continue
		}
		processed, stderr, code := run(t, "", args...)
		if code != 0 {
			t.Errorf("%s: stencil process --local: %s", c.name, stderr)
			continue
		}
		stripped, digests := withoutDigest(rendered)
		// A template's annotations: null (no annotations) becomes the map of the digest.
		processed = nullAnnotations.ReplaceAllString(processed, "")
		if stripped != processed {
			t.Errorf("%s: stencil render without its digests differs from stencil process --local:\n%s\n---\n%s", c.name, stripped, processed)
			continue
		}
		asJSON, _, _ := run(t, "", append(args, "-o", "json")...)
		list, err := jsonbytes.Compact([]byte(asJSON))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(list)
		want := "sha256:" + hex.EncodeToString(sum[:])
		for _, d := range digests {
			if d != want {
				t.Errorf("%s: digest %s, want the SHA-256 of the List, %s", c.name, d, want)
				break
			}
		}
	}
}

// TestRenderDiagnostics checks what stencil render writes on a failure: nothing on standard
// output, one FILE:LINE:COL: error: line per problem on standard error, the files named by
// their paths as the render file was given.
func TestRenderDiagnostics(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"stencil-render.yaml": "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nspec:\n" +
			"  templateFile: ../escape.yaml\n  valuesFiles: [/etc/passwd]\n  paramters: {}\n",
		"ok/stencil-render.yaml": "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nspec:\n  templateFile: t.yaml\n",
		"ok/t.yaml":              "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: t}\nparameters:\n- {name: NUM, type: int, value: x}\nobjects: []\n",
	}
	for name, content := range files {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := run(t, "", "render", "-f", filepath.Join(dir, "stencil-render.yaml"))
	if code == 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	for _, want := range []string{
		filepath.Join(dir, "stencil-render.yaml") + ":4:3: error: spec.templateFile: Invalid value: \"../escape.yaml\"",
		filepath.Join(dir, "stencil-render.yaml") + ":5:17: error: spec.valuesFiles[0]",
		filepath.Join(dir, "stencil-render.yaml") + ":6:3: error: spec.paramters: Forbidden: unknown field",
	} {
		if !strings.Contains(stderr, want+"") {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	_, stderr, code = run(t, "", "argocd", "generate", "-f", filepath.Join(dir, "ok", "stencil-render.yaml"))
	if want := filepath.Join(dir, "ok", "t.yaml") + ":5:26: error: parameters[0].value: Invalid value: \"x\": must be an integer"; code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %q", code, stderr, want)
	}
}

// TestStarlarkInTheSidecar: a template's Starlark transformer runs on the user's machine
// (stencil render) and in the plugin only when the administrator enables it.
func TestStarlarkInTheSidecar(t *testing.T) {
	dir := t.TempDir()
	template := `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: s}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
transformers:
- apiVersion: example.com/v1
  kind: Mark
  metadata: {name: mark}
  provider:
    starlark:
      source: |
        for item in ctx.resource_list["items"]:
            item["metadata"]["labels"] = {"marked": "yes"}
`
	for name, content := range map[string]string{"t.yaml": template,
		"stencil-render.yaml": "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateRender\nspec:\n  templateFile: t.yaml\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "stencil-render.yaml")
	if out, stderr, code := run(t, "", "render", "-f", file); code != 0 || !strings.Contains(out, "marked: \"yes\"") {
		t.Errorf("stencil render: exit %d, %s%s", code, out, stderr)
	}
	if _, stderr, code := run(t, "", "argocd", "generate", "-f", file); code == 0 || !strings.Contains(stderr, "t.yaml:11:5: error: transformers[0].provider.starlark: Forbidden") {
		t.Errorf("stencil argocd generate ran a Starlark transformer it was not allowed to: exit %d, %s", code, stderr)
	}
	if out, stderr, code := run(t, "", "argocd", "generate", "-f", file, "--enable-starlark"); code != 0 || !strings.Contains(out, `"marked": "yes"`) {
		t.Errorf("stencil argocd generate --enable-starlark: exit %d, %s%s", code, out, stderr)
	}
}
