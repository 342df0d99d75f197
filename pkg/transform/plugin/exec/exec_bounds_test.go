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

package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/sandbox"
	"stencil.dev/stencil/pkg/transform"
)

// runTestPlugin runs the test plugin name as a seed 000 generator whose config has spec.
func runTestPlugin(t *testing.T, policy *Policy, name string, spec map[string]any) ([]transform.Object, error) {
	t.Helper()
	return runTestGenerator(t, policy, name, map[string]any{"apiVersion": "team.example.com/v1", "kind": "Hostile",
		"metadata": map[string]any{"name": name}, "spec": spec})
}

// runTestGenerator runs the test plugin name as the generator config.
func runTestGenerator(t *testing.T, policy *Policy, name string, generator map[string]any) ([]transform.Object, error) {
	t.Helper()
	config, _ := json.Marshal(generator)
	p, errs := testKinds.Compile(execPlugins{policy: policy, as: name}, []transform.Config{{Raw: config, Generator: true}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	return p.Transform(transform.NewContext(t.Context(), 0), nil)
}

// pluginData is the data of the one ConfigMap a test plugin reports in.
func pluginData(t *testing.T, out []transform.Object, err error) map[string]any {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 {
		t.Fatalf("the plugin wrote %d objects, want its report", len(out))
	}
	return transform.NestedMap(out[0], "data")
}

// sampleRSS sums the resident memory of the live processes whose executable is exe every
// 10 ms until the returned function is called, which returns the highest sum seen.
func sampleRSS(exe string) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			var total int64
			entries, _ := os.ReadDir("/proc")
			for _, e := range entries {
				if target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || target != exe {
					continue
				}
				status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
				for _, line := range strings.Split(string(status), "\n") {
					if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
						n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64)
						total += n << 10
					}
				}
			}
			if total > peak.Load() {
				peak.Store(total)
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// TestExecPluginMemoryAcrossProcesses: a plugin that starts 10 children of 450 MB each
// stays within its run's memory budget, all processes together. RLIMIT_AS alone is per
// process: on 3731d16 the run's processes held 4.5 GB with a limit of 2 GiB (a Go program
// needs about 1.7 GB of address space to allocate 450 MB).
func TestExecPluginMemoryAcrossProcesses(t *testing.T) {
	const budget = 2 << 30
	policy := execPolicy(t)
	policy.Timeout = time.Minute
	policy.MemoryBytes = budget
	forker := filepath.Join(policy.Dir, "forker")
	stop := sampleRSS(forker)
	out, err := runTestPlugin(t, policy, "forker", map[string]any{"children": 10, "megabytes": 450})
	peak := stop()
	data := pluginData(t, out, err)
	t.Logf("one process: the run's processes peaked at %d MB of RSS together (budget %d MB); the plugin started %v children (%v; %v)",
		peak>>20, budget>>20, data["started"], data["error"], data["childError"])
	if peak > budget {
		t.Errorf("the run's processes held %d MB together, past the run's budget of %d MB", peak>>20, budget>>20)
	}
	if data["started"] != "0" || !strings.Contains(fmt.Sprint(data["error"]), "operation not permitted") {
		t.Errorf("a run of one process started %v children (%v), want none, refused", data["started"], data["error"])
	}

	// Runs of several processes need user namespaces; where the kernel gives none they are
	// refused, which pkg/sandbox's TestSeveralProcessesNeedNamespaces checks.
	if !sandbox.Probe().Namespaces {
		return
	}
	t.Run("several processes share the budget", func(t *testing.T) {
		// Each process gets a 32nd of the budget, 1.25 GiB (a Go program reserves 750 MB of
		// address space), and threads count as processes: 32 processes of 1.25 GiB at most.
		const processes, budget = 32, 32 * 1280 << 20
		policy := execPolicy(t)
		policy.MemoryBytes, policy.Processes = budget, processes
		policy.Env = append(policy.Env, "GOMAXPROCS=1")
		out, err := runTestPlugin(t, policy, "forker", map[string]any{"children": 2, "megabytes": 1})
		if data := pluginData(t, out, err); data["started"] != "2" {
			t.Errorf("a run of %d processes started %v children (%v), want 2", processes, data["started"], data["error"])
		}
		out, err = runTestPlugin(t, policy, "prober", map[string]any{"keyFile": "/nonexistent", "address": "127.0.0.1:1"})
		limits := pluginData(t, out, err)["rlimits"]
		t.Logf("the rlimits of each process: %v", limits)
		if want := fmt.Sprintf("as=%d fsize=%d nofile=%d nproc=%d", budget/processes, defaultDiskBytes, defaultOpenFiles, processes); !strings.HasPrefix(fmt.Sprint(limits), want) {
			t.Errorf("each process runs with %v, want %s: together within the budget", limits, want)
		}
	})
}

// TestExecPluginDiskBudget: a plugin that writes 2 GB into its working directory stops at the
// run's disk budget, whether in one file (RLIMIT_FSIZE) or in many (the size of its tmpfs).
// On 3731d16 it wrote all of it, onto the server's disk.
func TestExecPluginDiskBudget(t *testing.T) {
	const budget = 64 << 20
	policy := execPolicy(t)
	policy.Timeout = time.Minute
	policy.DiskBytes = budget
	for _, tc := range []struct {
		name          string
		fileMegabytes int
		want          string
	}{
		{"files of 32 MB", 32, "no space left on device"},
		{"one file", 2048, "file too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runTestPlugin(t, policy, "filler", map[string]any{"megabytes": 2048, "fileMegabytes": tc.fileMegabytes})
			data := pluginData(t, out, err)
			written, _ := strconv.Atoi(fmt.Sprint(data["written"]))
			t.Logf("wrote %d MB of 2048 (budget %d MB), then: %v", written>>20, budget>>20, data["error"])
			want := tc.want
			if !sandbox.Probe().Namespaces {
				// No tmpfs can bound the directory: it is read-only (pkg/sandbox).
				want = "permission denied"
			}
			if written > budget || !strings.Contains(fmt.Sprint(data["error"]), want) {
				t.Errorf("wrote %d bytes (%v), want at most %d and %q", written, data["error"], budget, want)
			}
		})
	}
}

// TestExecPluginUnixSockets: a plugin cannot connect to a UNIX socket of the host, by path
// (which Landlock does not mediate: on 3731d16 it reached it) or abstract.
func TestExecPluginUnixSockets(t *testing.T) {
	// A directory everyone may enter and a socket everyone may write: only the sandbox can
	// stop the plugin, which runs as nobody when the tests run as root.
	dir, err := os.MkdirTemp("", "stencil-test-sockets-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	_ = os.Chmod(dir, 0o755)
	paths := map[string]any{"pathname": filepath.Join(dir, "host.sock"), "abstract": fmt.Sprintf("@stencil-test-%d", os.Getpid())}
	var accepted atomic.Int32
	for _, p := range paths {
		l, err := net.Listen("unix", p.(string))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
	}
	_ = os.Chmod(paths["pathname"].(string), 0o777)
	out, err := runTestPlugin(t, execPolicy(t), "unixdialer", map[string]any{"paths": paths})
	data := pluginData(t, out, err)
	t.Logf("the plugin found: %v", data)
	for key := range paths {
		if !strings.HasPrefix(fmt.Sprint(data[key]), "denied") {
			t.Errorf("the plugin reached the %s socket of the host: %v", key, data[key])
		}
	}
	if n := accepted.Load(); n > 0 {
		t.Errorf("the host's sockets accepted %d connections from the plugin", n)
	}
}

// heapFigures reads the bytes allocated so far and the heap's live objects.
func heapFigures() (allocated, live uint64) {
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(samples)
	return samples[0].Value.Uint64(), samples[1].Value.Uint64()
}

// TestExecPluginOutputObjects: a generator that prints 200,000 ConfigMaps (39 MB) is refused
// by the object limit, counted while it writes, before the server decodes anything; a
// ResourceList of as many items by a count of its items before it is decoded. On 3731d16 the
// documents were decoded, allocating 7 GB and holding 700 MB.
func TestExecPluginOutputObjects(t *testing.T) {
	for _, tc := range []struct {
		name         string
		resourceList bool
		// maxAlloc bounds what the server allocates for the run: the output, not a tree per
		// object.
		maxAlloc uint64
	}{
		{"documents", false, 16 << 20},
		// The 39 MB of output, and the piece they are joined into.
		{"a ResourceList", true, 2*39<<20 + 16<<20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			policy := execPolicy(t)
			policy.Timeout = time.Minute
			// Room for the 39 MB: the object limit, not the byte limit, must refuse it.
			policy.MaxOutputBytes = 64 << 20
			runtime.GC()
			allocBefore, liveBefore := heapFigures()
			spec := map[string]any{"count": 200000, "resourceList": tc.resourceList}
			config := map[string]any{"apiVersion": "team.example.com/v1", "kind": "Flood", "metadata": map[string]any{"name": "flood"}, "spec": spec}
			if tc.resourceList {
				config = map[string]any{"apiVersion": "fn.example.com/v1", "kind": "Flood", "metadata": map[string]any{"name": "flood"},
					"provider": map[string]any{"exec": map[string]any{"path": "objects"}}, "spec": spec}
			}
			_, err := runTestGenerator(t, policy, "objects", config)
			allocAfter, liveAfter := heapFigures()
			runtime.GC()
			_, liveAfterGC := heapFigures()
			t.Logf("error: %v", err)
			t.Logf("heap: %d MB allocated during the run; live objects %d MB before, %d MB after (%d MB after a GC)",
				(allocAfter-allocBefore)>>20, liveBefore>>20, liveAfter>>20, liveAfterGC>>20)
			var te *transform.Error
			if !errors.As(err, &te) || !errors.Is(err, errPluginOutput) || !strings.Contains(err.Error(), fmt.Sprintf("limit of %d objects", defaultOutputObjects)) {
				t.Fatalf("error %v, want the object limit, naming the transformer", err)
			}
			if alloc := allocAfter - allocBefore; alloc > tc.maxAlloc {
				t.Errorf("the server allocated %d MB reading the output, want at most %d MB", alloc>>20, tc.maxAlloc>>20)
			}
		})
	}
}
