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
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runLint runs stencil lint with args and returns its exit code, output and errors.
func runLint(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	var out, errOut bytes.Buffer
	code := Run(IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, append([]string{"lint"}, args...))
	return code, out.String(), errOut.String()
}

// TestLintCommand: the four kinds of type errors of a file are written path:line:col, the
// exit code is 1; a clean file exits 0 with nothing written; -o sarif and -o json are JSON.
func TestLintCommand(t *testing.T) {
	broken := filepath.Join("..", "..", "lint", "testdata", "broken", "deployment.yaml")
	code, out, errOut := runLint(t, broken)
	for _, want := range []string{":14:5: error: ", ":15:5: error: ", ":25:11: error: ", ":26:11: error: "} {
		if !strings.Contains(out, broken+want) {
			t.Errorf("no %s%s in:\n%s", broken, want, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, "4 error(s) in 1 file(s)") {
		t.Errorf("exit %d, %q", code, errOut)
	}
	clean := filepath.Join(t.TempDir(), "clean.yaml")
	if err := os.WriteFile(clean, []byte("apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: ok\n"+
		"parameters:\n- name: COUNT\n  type: int\n  value: \"2\"\nobjects:\n- apiVersion: v1\n  kind: ReplicationController\n"+
		"  metadata:\n    name: rc\n  spec:\n    replicas: ${{COUNT}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runLint(t, clean); code != 0 || out != "" || errOut != "" {
		t.Errorf("a clean file: exit %d, %q, %q", code, out, errOut)
	}
	for _, format := range []string{"sarif", "json"} {
		code, out, _ := runLint(t, "-o", format, broken)
		if code != 1 || !strings.HasPrefix(out, "{") || !strings.Contains(out, `"startLine": 14`) && !strings.Contains(out, `"line": 14`) {
			t.Errorf("-o %s: exit %d:\n%s", format, code, out)
		}
	}
	if code, _, errOut := runLint(t, "-o", "xml", broken); code != 1 || !strings.Contains(errOut, "--output must be text, json or sarif") {
		t.Errorf("-o xml: exit %d, %q", code, errOut)
	}
}

// TestLintHostileServer: --server naming something that is not a Kubernetes API server, or
// one that never answers, is one clear error naming it, within --schema-timeout; no file is
// linted without the schemas asked for.
func TestLintHostileServer(t *testing.T) {
	broken := filepath.Join("..", "..", "lint", "testdata", "broken", "deployment.yaml")
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "\x00\x01 not json at all")
	}))
	defer garbage.Close()
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	defer stuck.Close()
	for _, c := range []struct {
		server, want string
	}{
		{garbage.URL, "/openapi/v3 is not an OpenAPI v3 document"},
		{stuck.URL, "context deadline exceeded"},
	} {
		code, out, errOut := runLint(t, "--server", c.server, "--schema-timeout", "1s", broken)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, c.server) {
			t.Errorf("--server %s: exit %d, %q, %q; want an error saying %q", c.server, code, out, errOut, c.want)
		}
	}
}
