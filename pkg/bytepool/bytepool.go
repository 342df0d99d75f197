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

// Package bytepool keeps byte buffers for use again, by size class: class k holds buffers of
// room for at least 1<<k bytes, so that a buffer taken is never much larger than asked and a
// small one is never taken for a large need. Buffers past the largest class are never kept,
// so that one large request does not keep its memory in a pool; sync.Pool drops the rest
// of what it holds as the collector runs. It imports nothing of the server: the server's
// request bodies and the engine's output Lists both use it.
package bytepool

import (
	"math/bits"
	"sync"
)

// Pool holds buffers of minBytes to maxBytes of room, by power-of-two class.
type Pool struct {
	minClass, maxClass int
	classes            []sync.Pool
}

// New returns a Pool of buffers from minBytes to maxBytes of room, both powers of two.
func New(minBytes, maxBytes int) *Pool {
	minClass, maxClass := bits.Len(uint(minBytes))-1, bits.Len(uint(maxBytes))-1
	return &Pool{minClass: minClass, maxClass: maxClass, classes: make([]sync.Pool, maxClass-minClass+1)}
}

// Class returns the size class of a buffer taken for n bytes (the smallest whose buffers all
// hold n), false when n is past the largest class or not positive.
func (p *Pool) Class(n int) (int, bool) {
	if n <= 0 || n > 1<<p.maxClass {
		return 0, false
	}
	return max(bits.Len(uint(n-1)), p.minClass), true
}

// Take returns a buffer with room for n bytes from the pool, or new (its length its room) when
// the pool has none; nil when n has no class. The bytes it holds are the last user's: the
// caller writes before it reads. Give takes the buffer back.
func (p *Pool) Take(n int) *[]byte {
	class, ok := p.Class(n)
	if !ok {
		return nil
	}
	if h, _ := p.classes[class-p.minClass].Get().(*[]byte); h != nil {
		return h
	}
	buf := make([]byte, 1<<class)
	return &buf
}

// Give gives h's buffer back for a later Take, into the class its room fills (a buffer that
// grew is kept by what it holds now); a buffer below the smallest class or larger than the
// largest goes to the collector. Nothing may read the buffer after.
func (p *Pool) Give(h *[]byte) {
	if h == nil {
		return
	}
	class := bits.Len(uint(cap(*h))) - 1
	if class < p.minClass || cap(*h) > 1<<p.maxClass {
		return
	}
	p.classes[class-p.minClass].Put(h)
}
