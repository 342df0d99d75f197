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

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/bytepool"
)

// The List Execute writes the objects in is its caller's: the objects are slices of it, and
// only the caller knows when nothing reads them any more. A server that writes the objects
// into its answer knows: once the answer is written. Such a caller asks for a pooled List
// (Request.PooledList) and gives it back (Result.ReleaseList) then; the next Execute that
// asks writes into it instead of new memory. The List was most of what Execute allocated
// (0.74 MB a pass of the JSON corpus, 2 MB of YAML), every byte of it collected.

// The pooled Lists are kept by size class, each class twice the one below, so that a List
// taken is never much larger than asked and a small one is never taken for a large List.
// A List past maxPooledListBytes is left to the collector, so that one large answer does not
// keep its memory in the pool out of reach of the server's memory budget.
const (
	minPooledListBytes = 1 << 10
	maxPooledListBytes = 256 << 10
)

var listPool = bytepool.New(minPooledListBytes, maxPooledListBytes)

// takeList returns an empty buffer with room for n bytes, from the pool when n is within its
// bounds, and the holder to give it back in (giveList).
func takeList(n int) *[]byte {
	h := listPool.Take(max(n, 1))
	if h == nil {
		buf := make([]byte, 0, n)
		return &buf
	}
	*h = (*h)[:0]
	return h
}

// giveList gives h's buffer back, as buf ended (it may have grown as the List was written),
// to the class whose Lists it has room for; a buffer past the bounds goes to the collector.
func giveList(h *[]byte, buf []byte) {
	*h = buf[:0]
	listPool.Give(h)
}

// ReleaseList gives the List r's Execute wrote back for the next Execute of a Request with
// PooledList, when r's Request asked for one. The caller must be done with r's objects and
// with every slice of them (ListOf's List too): their bytes become another request's. r
// forgets them first, so that a use of r after finds no objects, never another request's.
// Nothing happens to a Result of a Request without PooledList, nor the second time.
func (r *Result) ReleaseList() {
	if r == nil || r.pooledList == nil {
		return
	}
	h, list := r.pooledList, r.list
	r.pooledList, r.list, r.bounds, r.Objects = nil, nil, nil, nil
	giveList(h, list)
	parameters := r.pooledParameters
	r.pooledParameters, r.Parameters = nil, nil
	giveParameters(parameters)
}

// The parameters with their values are written for the caller too, 224 bytes each (a
// template of twenty made 4.5 KB for each request), and a server that answers with them has
// copied them into its answer by the time it gives the List back: they are pooled with it.
// A slice past maxPooledParameters goes to the collector.
const maxPooledParameters = 256

var parameterPool sync.Pool

// takeParameters returns n parameters, zero, from the pool when pooled (and the holder to give
// them back in), else new ones.
func takeParameters(n int, pooled bool) ([]templates.Parameter, *[]templates.Parameter) {
	if !pooled || n > maxPooledParameters {
		return make([]templates.Parameter, n), nil
	}
	h, _ := parameterPool.Get().(*[]templates.Parameter)
	if h == nil || cap(*h) < n {
		// Room for 16 at least, so that the next template's parameters most likely fit.
		room := make([]templates.Parameter, n, max(n, 16))
		return room, &room
	}
	*h = (*h)[:n]
	return *h, h
}

// giveParameters gives h's room back, cleared: a pooled slice keeps no request's values (a
// generated secret among them). Only its length is cleared: the room past it is zero, as
// takeParameters handed it out (new, or cleared when it was given back before), and nothing
// writes past a Result's parameters. Clearing the whole room cost every request the largest
// template's parameters (up to 256 of 224 bytes, pointers the collector's write barrier sees
// one by one while it marks), more than a small template's whole answer.
func giveParameters(h *[]templates.Parameter) {
	if h == nil {
		return
	}
	clear(*h)
	*h = (*h)[:0]
	parameterPool.Put(h)
}
