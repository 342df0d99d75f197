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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNobodyCannotRun names what keeps nobody from a plugin: a directory it may not enter, a
// plugin it may not execute, a script it may not read; and nothing when all allow it. A caller
// that is not root runs plugins as itself: nothing is said then.
func TestNobodyCannotRun(t *testing.T) {
	root, err := os.MkdirTemp("", "stencil-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path string, mode os.FileMode, content string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	closed := filepath.Join(root, "closed")
	if err := os.MkdirAll(filepath.Join(closed, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{write(filepath.Join(closed, "plugins", "p"), 0o755, "\x7fELF"), "may not enter " + closed + " (mode 0700, owner uid 0): let every user enter it (chmod o+x " + closed + ")"},
		{write(filepath.Join(root, "open", "binary"), 0o750, "\x7fELF"), "may not execute " + filepath.Join(root, "open", "binary") + " (mode 0750"},
		{write(filepath.Join(root, "open", "script"), 0o711, "#!/bin/sh\n"), "may not read " + filepath.Join(root, "open", "script") + " (mode 0711, owner uid 0): let every user read it (chmod o+r"},
		{write(filepath.Join(root, "open", "fine"), 0o755, "#!/bin/sh\n"), ""},
		{write(filepath.Join(root, "open", "binary-no-read"), 0o711, "\x7fELF"), ""},
	} {
		if !RunsAsNobody() {
			tc.want = ""
		}
		got := NobodyCannotRun(tc.path)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
		}
	}
}
