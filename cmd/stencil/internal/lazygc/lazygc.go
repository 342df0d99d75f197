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

// Package lazygc tunes the collector for a process that lives for one command, as cmd/compile
// does, unless GOGC is set. Importing it is all it takes: it works in its init.
//
// It is a package of its own so that it is initialised early. Go initialises packages in the
// order of their import paths among those whose imports are ready, and this one imports only
// os and runtime/debug, so it runs before the Kubernetes libraries' registries (client-go's
// scheme, the CEL libraries), which allocate about 4 MiB, Go's first heap goal: tuned in main,
// the first collection would come during their initialisation, 15% of what `stencil version`
// costs, to free almost nothing.
package lazygc

import (
	"os"
	"runtime"
	"runtime/debug"
)

func init() {
	if _, set := os.LookupEnv("GOGC"); !set {
		collectLazily()
	}
}

// collectLazily holds the first collection back until the heap reaches 64 MiB, then collects
// at 4x the live heap. With Go's 4 MiB start, the first collection would mark the Kubernetes
// libraries' registries: 15% of the instructions of processing 800 Deployment+Service pairs,
// to save 3 MB. The memory a lazier collector holds is given back at exit within milliseconds.
func collectLazily() {
	debug.SetGCPercent(1600) // the first goal is 4 MiB x 1600%
	runtime.SetFinalizer(&firstCollection{}, func(*firstCollection) { debug.SetGCPercent(400) })
}

// firstCollection is unreachable from the start: its finalizer runs after the first collection.
// It holds a pointer so that it is not batched with other small objects, whose finalizers may
// never run.
type firstCollection struct{ _ *byte }
