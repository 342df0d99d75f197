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
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ExecDenied is what the shim writes when the kernel refuses to execute the plugin (EACCES).
const ExecDenied = "sandbox: cannot execute the plugin: permission denied"

// NobodyCannotRun explains why PluginUID may not execute path, when plugins run as
// PluginUID, and what to do: the first directory on the way that nobody may not enter
// (search permission), or the file itself when nobody may not execute it, or, for a script,
// read it (its interpreter reads it as nobody). It reads permission bits and owners only;
// empty means they allow the run (ACLs and mount options, which they do not show, may still
// refuse it).
func NobodyCannotRun(path string) string {
	if !RunsAsNobody() || !filepath.IsAbs(path) {
		return ""
	}
	dir := string(filepath.Separator)
	for _, part := range strings.Split(filepath.Dir(path), string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		if why := nobodyLacks(dir, 0o1, "enter"); why != "" {
			return why
		}
	}
	if why := nobodyLacks(path, 0o1, "execute"); why != "" {
		return why
	}
	if isScript(path) {
		return nobodyLacks(path, 0o4, "read")
	}
	return ""
}

// nobodyLacks says what nobody may not do with path when its permission bits for nobody (as
// owner, group or other) lack bit, worded with what it could not do.
func nobodyLacks(path string, bit os.FileMode, what string) string {
	info, err := os.Stat(path)
	if err != nil {
		return ""
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	perm := info.Mode().Perm()
	var allowed os.FileMode
	switch {
	case st.Uid == PluginUID:
		allowed = perm >> 6
	case st.Gid == PluginUID:
		allowed = perm >> 3
	default:
		allowed = perm
	}
	if allowed&bit != 0 {
		return ""
	}
	chmod := "o+x"
	if bit == 0o4 {
		chmod = "o+r"
	}
	return fmt.Sprintf("nobody (uid %d) may not %s %s (mode %04o, owner uid %d): let every user %s it (chmod %s %s), "+
		"or install the plugins where every user may enter and read them, such as /usr/local/lib/stencil/plugins",
		PluginUID, what, path, perm, st.Uid, what, chmod, path)
}

// isScript reports whether path starts with #!, which the kernel hands to an interpreter
// that must read the file.
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("#!"))
}
