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

// Package heaptest measures what a piece of work holds on the heap, for the tests that bound
// memory in bytes (bodies, YAML aliases, processing). Only tests import it.
package heaptest

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Peak runs fn and returns the most heap it held beyond what was live before, sampled while
// it ran, with the collector running often so that garbage counts little.
func Peak(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	fn()
	close(stop)
	<-stopped
	return max(peak.Load(), before.HeapAlloc) - before.HeapAlloc
}
