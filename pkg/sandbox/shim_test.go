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

package sandbox

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// skipShimEnv makes this test binary's TestMain leave out RunShimIfRequested, as the main of a
// binary that may not be the shim does.
const skipShimEnv = "STENCIL_SANDBOX_TEST_NO_SHIM"

// shimOutput is what the plugin of TestNoShimWithoutTheCall would write if the test binary
// became its shim.
const shimOutput = "the plugin ran"

// TestNoShimWithoutTheCall: a binary whose main does not call RunShimIfRequested is not made
// the shim by the environment that makes one of a binary that does. This test binary is started
// again with the spec of a run in its environment and told to skip the call: it runs its own
// test, and the plugin never runs. Before the entry was explicit, an init function of this
// package made any binary that linked it the shim.
func TestNoShimWithoutTheCall(t *testing.T) {
	if os.Getenv(skipShimEnv) != "" {
		// The child: its own code runs, so it says so.
		t.Log("the test binary ran its own code")
		return
	}
	encoded, err := json.Marshal(shimSpec{Spec: Spec{Path: "/bin/sh", Args: []string{"-c", "echo " + shimOutput}, Dir: t.TempDir(), ReadOnly: []string{"/"}}})
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestNoShimWithoutTheCall$", "-test.v")
	child.Env = append(os.Environ(), specEnv+"="+string(encoded), skipShimEnv+"=1")
	out, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "the test binary ran its own code") || strings.Contains(string(out), shimOutput) {
		t.Fatalf("the binary without the call: %v\n%s", err, out)
	}
}

// TestCommandNeedsTheShim: in a binary whose main does not call RunShimIfRequested, Command
// starts nothing: started again, such a binary would run its own main, not confine a plugin.
func TestCommandNeedsTheShim(t *testing.T) {
	shimEnabled.Store(false)
	t.Cleanup(func() { shimEnabled.Store(true) })
	if _, err := Command(Spec{Path: "/bin/true", Dir: t.TempDir()}); !errors.Is(err, errNoShim) {
		t.Fatalf("Command without the shim's entry: %v, want %v", err, errNoShim)
	}
}

// TestNoInitFunction: this package changes nothing when it is linked; a binary opts in to being
// the shim by calling RunShimIfRequested.
func TestNoInitFunction(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for name, f := range p.Files {
			for _, d := range f.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					t.Errorf("%s declares an init function", name)
				}
			}
		}
	}
}
