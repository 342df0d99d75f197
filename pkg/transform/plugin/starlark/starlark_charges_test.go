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

package starlark

import (
	"runtime"
	"strings"
	"testing"
)

// chargedPrograms each keep a large value made in bulk, one per way of making one.
var chargedPrograms = []string{
	"r = list(range(N))",
	"r = tuple(range(N))",
	"r = [i for i in range(N)]",
	"r = [str(i) for i in range(N)]",
	"r = {i: i for i in range(N)}",
	"r = {}\nfor i in range(N):\n    r[str(i)] = i",
	"r = []\nfor i in range(N):\n    r.append(str(i))",
	"r = []\nfor i in range(N):\n    r.append(1.5 * i)",
	"r = set(range(N))",
	"r = set([str(i) for i in range(N)])",
	"r = dict(zip(range(N), range(N)))",
	"r = ('x,' * N).split(',')",
	"r = ('x y ' * N).split()",
	"r = ('x\\n' * N).splitlines()",
	"r = list(('x' * N).codepoints())",
	"r = list(('x' * N).elems())",
	"r = enumerate(range(N))",
	"r = zip(range(N), range(N))",
	"r = sorted(range(N), reverse=True)",
	"r = reversed(range(N))",
	"r = {str(i): i for i in range(N)}.items()",
	"r = str(list(range(N)))",
	"r = ','.join([str(i) for i in range(N)])",
	"r = 'x' * (8 * N)",
	"r = [[i] for i in range(N)]",
	"r = [(i, i) for i in range(N)]",
	"r = [lambda: i for i in range(N)]",
	"r = []\nfor i in range(N):\n    r += [i]",
	"r = set(range(N)) | set(range(N, 2 * N))",
	"r = {i: 1 for i in range(N)} | {-i: 1 for i in range(N)}",
	"r = ('%s' * N) % tuple(range(N))",
	"r = ('{}' * N).format(*range(N))",
	"r = ('ab' * N).upper()",
	"r = ('ab' * N).replace('a', 'xyz')",
}

// TestStarlarkChargesCoverAllocations holds the costs the guards charge to the heap: for
// every way of making a large value, what the run keeps (the heap after a collection, with
// the value reachable) is no more than what it was charged.
func TestStarlarkChargesCoverAllocations(t *testing.T) {
	const n = "200000"
	for _, program := range chargedPrograms {
		source := strings.ReplaceAll(program, "N", n)
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		base := m.HeapAlloc
		v, run, err := runGuardedBudget(source, 1<<30)
		if err != nil {
			t.Fatalf("%s: %v", program, err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m)
		kept := int64(m.HeapAlloc) - int64(base)
		runtime.KeepAlive(v)
		charged := int64(run.limit - run.budget)
		t.Logf("%-50q kept %6.1f MB, charged %6.1f MB", program, float64(kept)/1e6, float64(charged)/1e6)
		if kept > charged+256<<10 {
			t.Errorf("%s keeps %d bytes but was charged %d", program, kept, charged)
		}
	}
}
