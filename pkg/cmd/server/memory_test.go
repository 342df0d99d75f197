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

package server

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestProcessingMemory: the flag wins; else half of GOMEMLIMIT (as the Deployment sets it).
func TestProcessingMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	if got, from := processingMemory(0); got != 512<<20 || !strings.Contains(from, "GOMEMLIMIT") {
		t.Errorf("with GOMEMLIMIT=1GiB: %d (%s), want 512 MiB from GOMEMLIMIT", got, from)
	}
	if got, from := processingMemory(100 << 20); got != 100<<20 || from != "--processing-memory-bytes" {
		t.Errorf("with the flag: %d (%s)", got, from)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if got, _ := processingMemory(0); got <= 0 {
		t.Errorf("without GOMEMLIMIT: %d", got)
	}
}

// TestReadLimit: a cgroup's limit, and its ways of saying there is none.
func TestReadLimit(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]int64{"1073741824\n": 1 << 30, "max\n": 0, "9223372036854771712\n": 0} {
		file := filepath.Join(dir, "limit")
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := readLimit(file); got != want || ok != (want > 0) {
			t.Errorf("%q: %d %v, want %d", content, got, ok, want)
		}
	}
	if _, ok := readLimit(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file is a limit")
	}
}
