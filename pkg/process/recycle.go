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

package process

import (
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// A template given in a request (or to stencil process --local) is compiled for that request
// and its plan is garbage as soon as it was executed: its arena and program were a third of
// what processing such a template allocated, and the garbage collector's work grows with every
// byte allocated. A disposable plan takes that memory from the plans disposed before it and
// gives it back when its caller (pkg/render, once the request's output is made) disposes of
// it. Nothing a Result or an error holds points into it: Execute copies the arena's bytes into
// its own output buffer, and the errors and warnings are strings of their own.

// planMemory is the reusable memory of a disposable plan, between two plans.
type planMemory struct {
	arena   []byte
	ops     []op
	params  []compiledParameter
	index   map[string]int
	usage   []paramUsage
	objects []compiledObject
}

// The most of each kind of memory a disposed plan gives back: a plan compiled from a large
// template is left to the garbage collector, so that one large request does not keep its
// memory in the pool (up to one planMemory per request processed at once, until the next two
// collections) out of reach of the server's memory budget. 128 KiB holds the arena of all but
// the largest few of the corpus's 394 templates (5-8 KiB on average), 64 KiB of ops (3,200)
// the program of all but the largest few (110 ops on average).
const (
	maxPooledArenaBytes = 128 << 10
	maxPooledOps        = (64 << 10) / int(unsafe.Sizeof(op{}))
	maxPooledParams     = 256
	maxPooledObjects    = 1024
)

var planMemoryPool = sync.Pool{New: func() any { return &planMemory{} }}

// CompileDisposable is Compile for a plan its caller executes for one request and then
// disposes of (Dispose), whose memory is reused by the next disposable plan. A plan that may
// be kept (cached) must come from Compile: a disposable plan may hold more memory than it
// needs, what the last plan to use it left.
func CompileDisposable(t *templates.Template, d Dialect) (*Plan, field.ErrorList) {
	m := planMemoryPool.Get().(*planMemory)
	plan, errs := compile(t, d, m)
	if len(errs) > 0 {
		// Nothing of a plan that did not compile was handed out.
		plan.Dispose()
		return nil, errs
	}
	return plan, nil
}

// Dispose gives the memory of a plan from CompileDisposable back for the next one. The plan
// must not be executed, traced or asked anything after; what it returned before (Results,
// warnings, errors) holds none of that memory and stays valid. Dispose does nothing to a plan
// from Compile, nor to nil, nor the second time.
func (p *Plan) Dispose() {
	if m := p.forget(); m != nil {
		planMemoryPool.Put(m)
	}
}

// forget empties a disposable plan and returns its memory as the pool is to keep it; nil for
// any other plan.
func (p *Plan) forget() *planMemory {
	if p == nil || p.memory == nil {
		return nil
	}
	m := p.memory
	// The plan forgets everything, so that a use after Dispose finds an empty plan, never the
	// next request's program.
	arena, ops, params, index, usage, objects := p.arena, p.ops, p.params, p.index, p.usage, p.objects
	*p = Plan{}
	// Each piece goes back when it is larger than what the pool kept of its kind (which this
	// plan did not need) and not past the bound; a larger one is left to the collector.
	if cap(arena) > cap(m.arena) && cap(arena) <= maxPooledArenaBytes {
		m.arena = arena[:0]
	}
	if cap(ops) > cap(m.ops) && cap(ops) <= maxPooledOps {
		m.ops = ops[:0]
	}
	if cap(params) > cap(m.params) && cap(params) <= maxPooledParams {
		// The declarations are the template's: not kept alive by the pool.
		clear(params)
		m.params, m.usage = params[:0], usage[:0]
	}
	// A map keeps the room of the most names it ever held: one of a few names is kept.
	if index != nil && len(index) <= maxPooledParams {
		clear(index)
		m.index = index
	}
	if cap(objects) > cap(m.objects) && cap(objects) <= maxPooledObjects {
		// The objects' expressions (expr) are the plan's CEL programs.
		clear(objects)
		m.objects = objects[:0]
	}
	return m
}

// The take methods give a plan being compiled the pooled memory of a kind when it holds n
// (and the pool keeps it no more), new memory otherwise; m may be nil (Compile).

func (m *planMemory) takeArena(n int) []byte {
	if m == nil || cap(m.arena) < n {
		return make([]byte, 0, n)
	}
	arena := m.arena
	m.arena = nil
	return arena
}

func (m *planMemory) takeOps(n int) []op {
	if m == nil || cap(m.ops) < n {
		return make([]op, 0, n)
	}
	ops := m.ops
	m.ops = nil
	return ops
}

func (m *planMemory) takeObjects(n int) []compiledObject {
	if m == nil || cap(m.objects) < n {
		return make([]compiledObject, 0, n)
	}
	objects := m.objects
	m.objects = nil
	return objects
}

// takeParams gives the room of n compiled parameters (zero) and an empty index.
func (m *planMemory) takeParams(n int) ([]compiledParameter, map[string]int) {
	var params []compiledParameter
	var index map[string]int
	if m != nil {
		if cap(m.params) >= n {
			params, m.params = m.params[:n], nil
		}
		index, m.index = m.index, nil
	}
	if params == nil {
		params = make([]compiledParameter, n)
	}
	if index == nil {
		index = make(map[string]int, n)
	}
	return params, index
}

// takeUsage gives the room of n parameters' usage (zero), which the pool keeps with the
// parameters.
func (m *planMemory) takeUsage(n int) []paramUsage {
	if m == nil || cap(m.usage) < n {
		return make([]paramUsage, n)
	}
	usage := m.usage[:n]
	m.usage = nil
	clear(usage)
	return usage
}

// executorPool keeps the working memory of Execute: the executor, the values in their
// written forms, the open objects' frames, the expressions' results. None of it is in a
// Result; the output buffer (the List) is, and is never pooled.
var executorPool = sync.Pool{New: func() any { return &executor{} }}

// maxPooledTextBytes bounds the escaped values an executor keeps room for, as
// maxPooledArenaBytes bounds a plan's arena; maxPooledValues the number of values.
const (
	maxPooledTextBytes = 64 << 10
	maxPooledValues    = 256
)

func newExecutor(p *Plan) *executor {
	x := executorPool.Get().(*executor)
	x.plan, x.element = p, -1
	if cap(x.values) >= len(p.usage) {
		x.values = x.values[:len(p.usage)]
	} else {
		x.values = make([]paramValue, len(p.usage))
	}
	return x
}

// release gives the executor back once its Result holds what it keeps (the List's buffer,
// the objects' bounds and origins).
func (x *executor) release() {
	x.forget()
	executorPool.Put(x)
}

// forget empties the executor of everything of its request, keeping the room of its working
// memory within the bounds.
func (x *executor) forget() {
	values, texts, frames, results, used := x.values, x.texts, x.frames, x.results, x.used
	*x = executor{}
	if cap(used) <= maxPooledValues {
		x.used = used[:0]
	}
	if cap(values) <= maxPooledValues {
		clear(values)
		x.values = values[:0]
	}
	if cap(texts) <= maxPooledTextBytes {
		x.texts = texts[:0]
	}
	if cap(frames) <= maxPooledValues {
		x.frames = frames[:0]
	}
	if cap(results) <= maxPooledValues {
		// The results are CEL values of this request's parameters.
		clear(results)
		x.results = results[:0]
	}
}

// maxPooledObjectBytes bounds the object the compiler's pooled scratch keeps room for: its
// compacted copy and its index (structure.ends, six bytes a byte of the object), under 1 MiB
// in all; a larger object's are left to the collector. A smaller bound (64 KiB) cost the
// YAML corpus 2 MB a pass: each scratch dropped is grown again, step by step, by the objects
// after it.
const maxPooledObjectBytes = 128 << 10

// tooLargeToPool says the working memory of compiling grew, on a large object, past what the
// pool keeps: one 10 MB template would otherwise keep 70 MB in the pool.
func (s *scratch) tooLargeToPool() bool {
	return cap(s.src) > maxPooledObjectBytes || cap(s.structure.ends) > maxPooledObjectBytes*3/2 ||
		cap(s.structure.dollars) > maxPooledObjectBytes/4 || cap(s.structure.names) > maxPooledObjects
}
