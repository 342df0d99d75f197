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

package exectest

import (
	_ "embed"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// pluginSource is the test plugin: one program that behaves as the name it is run as.
//
//go:embed testdata/plugin/main.go.txt
var pluginSource []byte

var (
	pluginDirOnce sync.Once
	pluginDir     string
	pluginDirErr  error
)

// Names are the behaviours of testdata/plugin, one link each.
var Names = []string{"team.example.com", "annotate", "sleeper", "flood", "unsupported", "remover", "failing", "prober", "forker", "filler", "unixdialer", "objects"}

// Build compiles testdata/plugin (pluginSource) once per test binary into a directory every user may
// read (the plugins run as nobody when the tests run as root), linked under each name.
func Build(t testing.TB) string {
	t.Helper()
	pluginDirOnce.Do(func() {
		dir, err := os.MkdirTemp("", "stencil-test-plugins-")
		if err != nil {
			pluginDirErr = err
			return
		}
		src := filepath.Join(dir, "src")
		if err := os.MkdirAll(src, 0o755); err != nil {
			pluginDirErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(src, "main.go"), pluginSource, 0o644); err != nil {
			pluginDirErr = err
			return
		}
		bin := filepath.Join(dir, "bin")
		_ = os.Mkdir(bin, 0o755)
		build := exec.Command("go", "build", "-o", filepath.Join(bin, Names[0]), "main.go")
		build.Dir = src
		build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
		if out, err := build.CombinedOutput(); err != nil {
			pluginDirErr = errors.New(string(out))
			return
		}
		for _, name := range Names[1:] {
			if err := os.Link(filepath.Join(bin, Names[0]), filepath.Join(bin, name)); err != nil {
				pluginDirErr = err
				return
			}
		}
		_ = os.Chmod(dir, 0o755)
		pluginDir = bin
	})
	if pluginDirErr != nil {
		t.Fatalf("building the test plugins: %v", pluginDirErr)
	}
	return pluginDir
}
