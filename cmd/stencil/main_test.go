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

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/transform/plugin/exec/exectest"
)

// TestExecPluginThroughTheBinary: the stencil binary, built as make build builds it, runs an exec
// plugin with --local --enable-exec. Every run starts the binary again as the sandbox's shim,
// which it is only because main calls sandbox.RunShimIfRequested first: without the call the
// run is refused ("its main does not call sandbox.RunShimIfRequested"). The server's binary is
// proved the same way by test/e2e (TestExecPluginPolicyInCluster) and test/reliability.
func TestExecPluginThroughTheBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stencil")
	build := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building stencil: %v\n%s", err, out)
	}
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}],
		"transformers":[{"apiVersion":"fn.example.com/v1","kind":"Annotate","provider":{"exec":{"path":"annotate"}},"spec":{"value":"from-the-binary"}}]}`
	cmd := exec.Command(bin, "process", "--local", "-f", "-", "--plugin-dir", exectest.Build(t), "--enable-exec")
	cmd.Stdin = strings.NewReader(template)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "krm: from-the-binary") {
		t.Fatalf("stencil process: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(bin)); len(entries) != 1 {
		t.Fatalf("the run left files beside the binary: %v", entries)
	}
}
