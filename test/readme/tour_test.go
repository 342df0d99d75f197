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

package readme

import (
	"os"
	"path/filepath"
	"testing"
)

// repoRoot is the checkout this package lives in.
var repoRoot = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}()

// TestReadmeTour is the local tour as a newcomer without a cluster follows it: the README's
// `sh server` command (make run ...) in the repository, then every `sh` block in order in one
// bash, with the real kubectl on PATH and nothing of Stencil's until the README puts it there;
// each documented output is compared (Match). The `sh cluster` blocks are left out here; test/e2e
// runs them with the rest against a cluster.
func TestReadmeTour(t *testing.T) {
	blocks, err := ParseFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	server, err := ServerBlock(blocks)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checkout, err := NewCheckout(repoRoot, dir)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "server.log")
	s, err := StartLocalServer(repoRoot, server, checkout, logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Stop()
		if t.Failed() {
			if log, err := os.ReadFile(logPath); err == nil {
				t.Logf("the server's output (%s):\n%s", server.Text, tail(log, 8000))
			}
		}
	}()
	session, err := StartSession(checkout.Dir, checkout.Env())
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	RunBlocks(t, session, blocks, Local)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
