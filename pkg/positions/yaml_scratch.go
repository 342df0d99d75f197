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

package positions

import (
	"sync"
	"unsafe"
)

// scratch is the working memory of one read: the tree, the children of its collections, the
// arena of scalars that are not a run of the source, and the emitter's members. None of it
// outlives the read (the JSON and the Index's entries are allocated apart), and it is most of
// what a read allocates (about 3 bytes of it per byte of YAML read): reads reuse it through a
// pool, so that a process reading template after template (the engine, the server) does not
// allocate, zero and collect it each time.
type scratch struct {
	nodes   []node
	kids    []int32
	stack   []int32
	arena   []byte
	assigns []assign
	// out is where the emitter writes a document's JSON before it is copied out.
	out []byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledScratch is the most memory a pooled scratch keeps: the working memory of a read of
// a few MB of YAML. What a larger document grew is left to the collector.
const maxPooledScratch = 16 << 20

// takeScratch gives the parser pooled working memory, with room for a document of size bytes
// (a template's YAML has about a node per 12 bytes; sizing for it saves the copies of growing).
func (p *parser) takeScratch(size int) {
	s := scratchPool.Get().(*scratch)
	p.scratch = s
	p.nodes = grown(s.nodes[:0], size/12+8)
	p.kids = grown(s.kids[:0], size/12+8)
	p.stack, p.arena, p.assigns = s.stack[:0], s.arena[:0], s.assigns[:0]
}

// releaseScratch returns the parser's working memory to the pool; the parser must not read
// its tree afterwards.
func (p *parser) releaseScratch() {
	s := p.scratch
	if s == nil {
		return
	}
	p.scratch = nil
	// The members hold keys: slices of the source, which the pool must not keep alive. Only
	// the members this read wrote are cleared: the room past them is zero, as the read took
	// it (new, or cleared by the read before). Clearing the whole room cost every read the
	// most members any read had left room for, a small template's as a large one's.
	clear(p.assigns[:p.assigned])
	p.assigned = 0
	s.nodes, s.kids, s.stack, s.arena, s.assigns = p.nodes[:0], p.kids[:0], p.stack[:0], p.arena[:0], p.assigns[:0]
	p.nodes, p.kids, p.stack, p.arena, p.assigns = nil, nil, nil, nil, nil
	size := cap(s.nodes)*int(unsafe.Sizeof(node{})) + cap(s.kids)*4 + cap(s.stack)*4 + cap(s.arena) +
		cap(s.assigns)*int(unsafe.Sizeof(assign{})) + cap(s.out)
	if size <= maxPooledScratch {
		scratchPool.Put(s)
	}
}

// scratchOut returns the working memory the emitter writes a document's JSON into, empty,
// with room for size bytes.
func (p *parser) scratchOut(size int) []byte {
	if p.scratch == nil {
		return make([]byte, 0, size)
	}
	return grown(p.scratch.out[:0], size)
}

// keepOut returns the JSON the emitter wrote into out. The emitter writes into working memory
// sized by an estimate (a sixth more than it needs on the corpus): the JSON is copied to
// memory of its exact size, which costs less than allocating and collecting the estimate's
// slack, and out is kept for the next document or read. A JSON too large to keep (a document
// of several MB, read once) is returned as it is.
func (p *parser) keepOut(out []byte) []byte {
	if p.scratch == nil || cap(out) > maxPooledOut {
		return out
	}
	p.scratch.out = out[:0]
	var json []byte
	if p.into != nil {
		json = p.into.JSONMemory(len(out))
	}
	if len(json) != len(out) {
		json = make([]byte, len(out))
	}
	copy(json, out)
	return json
}

// maxPooledOut is the largest JSON buffer a scratch keeps.
const maxPooledOut = maxPooledScratch / 4

// grown returns s (empty) with room for n elements.
func grown[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	return make([]T, 0, n)
}
