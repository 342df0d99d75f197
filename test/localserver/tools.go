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

package localserver

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// BuildPlugin compiles source, one Go file of the standard library only, into dir/bin/name,
// in a directory every user may read (the server runs plugins as nobody when it runs as root),
// and returns dir/bin, the plugin directory to give --plugin-dir.
func BuildPlugin(dir, name, source string) (string, error) {
	src, bin := filepath.Join(dir, "src"), filepath.Join(dir, "bin")
	for _, d := range []string{src, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(source), 0o644); err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", filepath.Join(bin, name), "main.go")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the plugin %s: %v\n%s", name, err, out)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	return bin, nil
}

// PeakRSS reads the peak resident set size (VmHWM) of process pid from /proc, in bytes.
func PeakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's memory (the suites run on Linux): %w", err)
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if value, ok := strings.CutPrefix(scanner.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
