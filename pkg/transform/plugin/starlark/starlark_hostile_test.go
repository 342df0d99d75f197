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
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// Issue 24: programs whose one built-in call looped or allocated for minutes inside a single
// step. Each must end with a bound of its own transformer, and leave nothing running.

// hostileRun runs source as a Starlark transformer over one object and returns its error. A
// run that does not end is reported after a minute instead of hanging the test binary: that
// is a liveness watchdog, not a bound on speed (the runs below end in milliseconds).
func hostileRun(t *testing.T, ctx context.Context, source string, limits transform.Limits) error {
	t.Helper()
	p, errs := testKinds.Compile(starlarkPlugins{}, []transform.Config{{Raw: transformtest.StarlarkConfig(t, source, nil)}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	objects := transformtest.YAMLDocs(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}")
	done := make(chan error, 1)
	go func() {
		_, err := p.Transform(transform.NewContext(ctx, 64<<20).SetLimits(limits), objects)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("the run did not end a minute after it started; its goroutine keeps a core busy")
		return nil
	}
}

// assertBound checks that err is a bound of the transformer, about the script, not Go.
func assertBound(t *testing.T, err error, want error) {
	t.Helper()
	var te *transform.Error
	if !errors.As(err, &te) || te.Name != "annotate" {
		t.Fatalf("want an error naming the transformer, got %v", err)
	}
	if !errors.Is(err, want) {
		t.Fatalf("error %q, want %q", err, want)
	}
	if msg := err.Error(); strings.Contains(msg, "runtime error") || strings.Contains(msg, "internal error") {
		t.Fatalf("the error is about Go, not the script: %s", msg)
	}
}

// assertNothingRuns checks that no goroutine is left evaluating Starlark once the run has
// returned: what kept a core busy after the 504 was such a goroutine.
func assertNothingRuns(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "go.starlark.net/") {
			t.Fatalf("a goroutine still runs Starlark after the answer:\n%s", g)
		}
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPrograms loop inside one built-in; before issue 24 each ran for hours in one step.
var cpuPrograms = map[string]string{
	"all over a huge range":        "b = all(range(1, 1 << 62))",
	"any over falsy elements":      "b = any(bytes('\\0' * 2000000).elems())",
	"max over a huge range":        "b = max(range(1 << 62))",
	"min over a huge range":        "b = min(range(1 << 62))",
	"sorted over a huge range":     "b = sorted(range(1 << 62), reverse=True)",
	"enumerate over a range":       "b = enumerate(range(1 << 62))",
	"zip over ranges":              "b = zip(range(1 << 62), range(1 << 62))",
	"reversed range":               "b = reversed(range(1 << 62))",
	"join of a string's elements":  "b = ''.join(('x' * 3000000).elems())",
	"a set of a huge range":        "b = set(range(1 << 62))",
	"a dict of zipped ranges":      "b = dict(zip(range(1 << 62), range(1 << 62)))",
	"list extended by a range":     "l = []\nl.extend(range(1 << 62))",
	"list += a range":              "l = []\nl += range(1 << 62)",
	"f(*range)":                    "def f(*a):\n    return len(a)\nb = f(*range(1 << 62))",
	"str.count of a long string":   "s = 'x' * 60000000\nfor i in range(1000):\n    n = s.count('y')",
	"deep shared lists compare":    "a = [1]\nb = [1]\nfor i in range(8):\n    a = [a] * 100\n    b = [b] * 100\nc = a == b",
	"deep shared lists in a list":  "a = [1]\nb = [1]\nfor i in range(8):\n    a = [a] * 100\n    b = [b] * 100\nc = a in [b]",
	"deep shared lists sorted":     "a = [1]\nb = [1]\nfor i in range(8):\n    a = [a] * 100\n    b = [b] * 100\nc = sorted([a, b])",
	"deep shared lists list.index": "a = [1]\nb = [1]\nfor i in range(8):\n    a = [a] * 100\n    b = [b] * 100\nc = [a].index(b)",
	"deep shared tuple as a key":   "t = (1,)\nfor i in range(60):\n    t = (t, t)\nd = {}\nd[t] = 1",
	"deep shared tuple in a set":   "t = (1,)\nfor i in range(60):\n    t = (t, t)\ns = set([t])",
	"deeply nested tuple as a key": "t = ()\nfor i in range(100000):\n    t = (t,)\nd = {t: 1}",
}

// TestStarlarkBuiltinsCountSteps: with no clock to stop them, only the step limit can end
// these runs, so each ends only if the built-in counts the steps of its loop.
func TestStarlarkBuiltinsCountSteps(t *testing.T) {
	for name, source := range cpuPrograms {
		t.Run(name, func(t *testing.T) {
			err := hostileRun(t, t.Context(), source, transform.Limits{StarlarkSteps: 1_000_000, StarlarkTimeout: time.Hour, StarlarkMemoryBytes: 1 << 40})
			if !errors.Is(err, errStarlarkSteps) && !errors.Is(err, errStarlarkMemory) {
				t.Fatalf("want the step limit, got %v", err)
			}
			assertBound(t, err, err.(*transform.Error).Err)
			assertNothingRuns(t)
		})
	}
}

// TestStarlarkBuiltinsSeeTheClockAndTheRequest: with no step limit to stop them, the run's
// time limit, or the end of its request, must reach into the built-in's loop.
func TestStarlarkBuiltinsSeeTheClockAndTheRequest(t *testing.T) {
	const source = "b = all(range(1, 1 << 62))"
	unlimited := transform.Limits{StarlarkSteps: 1 << 62, StarlarkMemoryBytes: 1 << 40}

	timed := unlimited
	timed.StarlarkTimeout = 50 * time.Millisecond
	assertBound(t, hostileRun(t, t.Context(), source, timed), errStarlarkTimeout)
	assertNothingRuns(t)

	unlimited.StarlarkTimeout = time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	time.AfterFunc(50*time.Millisecond, cancel)
	// A request that ended is not the transformer's fault: the pipeline answers its error.
	if err := hostileRun(t, ctx, source, unlimited); !errors.Is(err, context.Canceled) {
		t.Fatalf("want the request's end, got %v", err)
	}
	assertNothingRuns(t)

	// What the process does after the answer, for the record (not asserted: a machine shared
	// with other tests has its own load): the Starlark run itself adds nothing.
	before := cpuTime(t)
	time.Sleep(200 * time.Millisecond)
	t.Logf("CPU time of the whole test process in the 200 ms after the answer: %s", cpuTime(t)-before)
}

// memoryPrograms made gigabytes inside one step before issue 24, under a 64 MiB budget. Those
// that make no garbage are refused before they allocate, so every byte the run allocated is
// held to the budget too.
var memoryPrograms = map[string]struct {
	source, want string
	garbage      bool
}{
	"split":                {"s = 'x' * 60000000\nl = s.split('x')", "split() would make a list of 60000001 strings", false},
	"splitlines":           {"s = '\\n' * 60000000\nl = s.splitlines()", "splitlines() would make a list of 60000001 strings", false},
	"codepoints":           {"s = 'x' * 60000000\nl = list(s.codepoints())", "list() went past", false},
	"items * 10000000":     {`ctx.resource_list["items"] = ctx.resource_list["items"] * 10000000`, "list * int would make", false},
	"items * 1000000":      {`ctx.resource_list["items"] = ctx.resource_list["items"] * 1000000`, "its result would take more as objects", false},
	"list of a huge range": {"l = list(range(1 << 62))", "list() would hold 4.6e18 elements", false},
	"format repeats":       {"s = ('{0}' * 1000000).format('x' * 1000)", "format() would make", false},
	"comprehension":        {"l = [str(i) for i in range(10000000)]", "memory limit", true},
	"dict stores":          {"d = {}\nfor i in range(10000000):\n    d[i] = i", "the dict entries it made", true},
	"closures kept":        {"f = None\nfor i in range(10000000):\n    f = (lambda g: lambda: g)(f)", "the function it made", true},
}

// TestStarlarkMemoryStaysInItsBudget runs each program under the default 64 MiB budget and
// measures the heap the moment the run passes its budget, after a collection, while all it
// holds is still reachable: that is the run's peak, and it stays within the budget and a
// small constant. The bytes allocated during the whole run (runtime/metrics'
// /gc/heap/allocs:bytes, garbage included) are logged beside it.
func TestStarlarkMemoryStaysInItsBudget(t *testing.T) {
	budget, slack := uint64(transform.DefaultLimits().StarlarkMemoryBytes), uint64(8<<20)
	var peak uint64
	budgetPassedHook = func() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = m.HeapAlloc
	}
	defer func() { budgetPassedHook = nil }()
	for name, tc := range memoryPrograms {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			base, before := m.HeapAlloc, allocatedBytes()
			peak = 0
			err := hostileRun(t, t.Context(), tc.source, transform.Limits{StarlarkTimeout: time.Hour, StarlarkSteps: 1 << 40})
			allocated := allocatedBytes() - before
			live := int64(peak) - int64(base)
			t.Logf("peak heap of the run %.1f MB, allocated during it %.1f MB (budget %d MiB): %v", float64(live)/1e6, float64(allocated)/1e6, budget>>20, err)
			if !tc.garbage && allocated > budget+slack {
				t.Fatalf("the run allocated %d bytes, past its budget of %d and %d more", allocated, budget, slack)
			}
			assertBound(t, err, errStarlarkMemory)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to say %q", err, tc.want)
			}
			if live > int64(budget+slack) {
				t.Fatalf("the run held %d bytes, past its budget of %d and %d more", live, budget, slack)
			}
		})
	}
}

// allocatedBytes is every byte the heap has allocated so far.
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
