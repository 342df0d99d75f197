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
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/metrics"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/transform/kustomize"
)

// applyProcessingMemory sets the memory processing requests hold together in c: flag's bytes,
// or what processingMemory derives when it is zero. recorder reports what is held.
func applyProcessingMemory(flag int64, c *apiserver.ExtraConfig, recorder *metrics.Recorder) {
	memory, from := processingMemory(flag)
	c.ProcessingMemory = renderrest.NewProcessingBudget(memory, recorder.MemoryHeld)
	all, plugins := c.ProcessingMemory.Capacity(false), c.ProcessingMemory.Capacity(true)
	klog.Infof("Processing may hold %d MiB (%s); requests that may run plugins %d MiB of it", all>>20, from, plugins>>20)
	recorder.MemoryCapacity(all, plugins)
}

// applyKustomizeBuilds makes the inline Kustomizations' builds run in this binary's build
// workers, killed when their request ends (Kustomize cannot be stopped otherwise); a binary
// whose main does not serve them builds in the request's goroutine, as the CLI does.
func applyKustomizeBuilds(c *apiserver.ExtraConfig) {
	workers, err := kustomize.NewWorkers()
	if err != nil {
		klog.Warningf("Kustomization builds run in the requests' goroutines, and go on after their request ends: %v", err)
		return
	}
	c.KustomizeBuilder = workers
}

// cgroupMemoryFiles hold the memory limit of the process's cgroup, v2 then v1; a v1 cgroup
// without a limit reads as a number near 2^63.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// processingMemory returns the processing memory of the server and where it comes from, for
// the log: the flag when set, else half of the process's memory limit (GOMEMLIMIT, else the
// cgroup's), else renderrest.DefaultMemoryBytes.
//
// Half, because the rest of the process lives beside processing: the server itself, the
// renderer's caches (--plan-cache-bytes, --pipeline-cache-bytes), the controller's informers,
// and the garbage collector's room between the live heap and the limit, without which it
// would run all the time, or fail to keep the process under the limit.
func processingMemory(flag int64) (int64, string) {
	if flag > 0 {
		return flag, "--processing-memory-bytes"
	}
	if limit := debug.SetMemoryLimit(-1); limit > 0 && limit < math.MaxInt64 {
		return limit / 2, fmt.Sprintf("half of GOMEMLIMIT (%d bytes)", limit)
	}
	for _, file := range cgroupMemoryFiles {
		if limit, ok := readLimit(file); ok {
			return limit / 2, fmt.Sprintf("half of the memory limit of the process's cgroup (%d bytes, %s)", limit, file)
		}
	}
	return renderrest.DefaultMemoryBytes, "the default, with no memory limit known"
}

// readLimit reads a cgroup memory limit; "max" and v1's near-2^63 are no limit.
func readLimit(file string) (int64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || limit <= 0 || limit >= 1<<62 {
		return 0, false
	}
	return limit, true
}
