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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessLocalPlugins: --local always runs Starlark, reading provider.starlark.path from
// the template's directory; exec plugins need --local --enable-exec --plugin-dir, and without
// them a template that uses one is refused with the provider named.
func TestProcessLocalPlugins(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "owner.star"), []byte(`for item in ctx.resource_list["items"]:
    item["metadata"]["annotations"] = {"owner": ctx.resource_list["functionConfig"]["owner"]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tpl := func(path string) string {
		return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}],
		"transformers":[{"apiVersion":"example.com/v1","kind":"Owner","owner":"me","provider":{"starlark":{"path":"` + path + `"}}}]}`
	}
	file := filepath.Join(dir, "template.json")
	if err := os.WriteFile(file, []byte(tpl("owner.star")), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "", "process", "--local", "-f", file)
	if code != 0 || !strings.Contains(stdout, "owner: me") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// Issue 24: a template processed locally reads no file but those beside it.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.star"), []byte("fail('read')"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.star"), filepath.Join(dir, "link.star")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, filepath.Join(outside, "secret.star"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/etc/passwd": "must be a path relative to the template's directory",
		rel:           "must stay inside the template's directory",
		"link.star":   "must stay inside the template's directory (a symbolic link leads out of it)",
	} {
		if err := os.WriteFile(file, []byte(tpl(path)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, "", "process", "--local", "-f", file)
		if code == 0 || !strings.Contains(stderr, "transformers[0].provider.starlark.path") || !strings.Contains(stderr, want) {
			t.Fatalf("path %s: exit %d, stderr:\n%s", path, code, stderr)
		}
	}
	_, stderr, code = run(t, tpl("owner.star"), "process", "--local", "-f", "-")
	if code == 0 || !strings.Contains(stderr, "the template was not read from a file") {
		t.Fatalf("a path from a template on stdin: exit %d, stderr:\n%s", code, stderr)
	}

	execTpl := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}],
		"transformers":[{"apiVersion":"example.com/v1","kind":"X","provider":{"exec":{"path":"x"}}}]}`
	_, stderr, code = run(t, execTpl, "process", "--local", "-f", "-")
	if code == 0 || !strings.Contains(stderr, "the exec provider is not enabled") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = run(t, execTpl, "process", "--local", "-f", "-", "--plugin-dir", dir)
	if code == 0 || !strings.Contains(stderr, "exec plugins run only with --local --enable-exec --plugin-dir DIR") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = run(t, execTpl, "process", "--local", "-f", "-", "--plugin-dir", dir, "--enable-exec")
	if code == 0 || !strings.Contains(stderr, "no such plugin is installed") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestProcessLocalExecPluginNobodyCannotEnter: as root, plugins run as nobody, and a plugin
// directory under a directory of root's that others may not enter (a 0700 home) keeps them
// out. The error says so, names that directory and what to do; on 3731d16 it was only
// "sandbox: cannot execute the plugin: permission denied". Not as root, the plugin runs as
// the caller, who may enter its own home: the template processes.
func TestProcessLocalExecPluginNobodyCannotEnter(t *testing.T) {
	// Not t.TempDir(), whose parent is 0700 too: home must be the first that keeps nobody out.
	home, err := os.MkdirTemp("", "stencil-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	plugins := filepath.Join(home, "plugins")
	if err := os.Mkdir(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugins, "x"), []byte("#!/bin/sh\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	execTpl := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}],
		"transformers":[{"apiVersion":"example.com/v1","kind":"X","provider":{"exec":{"path":"x"}}}]}`
	_, stderr, code := run(t, execTpl, "process", "--local", "-f", "-", "--plugin-dir", plugins, "--enable-exec")
	if os.Getuid() != 0 {
		if code != 0 {
			t.Fatalf("not as root, the plugin runs as the caller: exit %d:\n%s", code, stderr)
		}
		return
	}
	for _, want := range []string{"plugins run as nobody when stencil runs as root", "may not enter " + home + " (mode 0700", "chmod o+x " + home} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, stderr without %q:\n%s", code, want, stderr)
		}
	}
}
