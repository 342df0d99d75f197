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

package apiserver

import "stencil.dev/stencil/pkg/bytepool"

// The buffers YAML bodies are read into are used again. A YAML body the body filter converts
// is not read after its conversion: the handler reads the JSON, which the converter wrote into
// a buffer of its own (none of the YAML's bytes), and its positions are offsets into that JSON.
// On the corpus's YAML templates the body is a seventh of what the server path allocates
// (the engine reads its file where it is), and the collector's work grows with what is
// allocated. A JSON body, a YAML body left as it is for the decoder, and the JSON a YAML body
// converts to are decoded from their own bytes (a Template's objects are slices of them): they
// are given back only for a processing POST, once the processing handler has finished the
// request (body_finish.go), and are otherwise left to the collector.
//
// What the pools hold is bounded: a buffer of more than maxRecycledBody is never kept, and
// the pools keep at most the buffers given back since the collector last ran (sync.Pool drops
// the rest), which were read under the requests' memory budget, at most what it let in at once.

// maxRecycledBody is the largest buffer a pool keeps: above it, a body is read into a buffer
// of its size, as any body is, and left to the collector.
const maxRecycledBody = 1 << 20

// recycledBodies are the body buffers given back, by size class: 4 KiB (a smaller body takes a
// buffer of it) to maxRecycledBody.
var recycledBodies = bytepool.New(4<<10, maxRecycledBody)

// recycledClass returns the size class of a buffer for size bytes; false when it is larger
// than any buffer kept.
func recycledClass(size int64) (int, bool) {
	if size > maxRecycledBody {
		return 0, false
	}
	return recycledBodies.Class(int(size))
}

// takeBody returns a buffer with room for size bytes from the pools (nil when size has no
// class); giveBody takes it back.
func takeBody(size int64) *[]byte {
	if size > maxRecycledBody {
		return nil
	}
	return recycledBodies.Take(int(size))
}

// giveBody gives buf, from takeBody, back: its bytes are no longer read by anything.
func giveBody(buf *[]byte) { recycledBodies.Give(buf) }

// convertedBuffer is the buffer of the pools the JSON of a YAML body is copied into
// (positions.OnlyDocumentStrictInto), for a request whose handler may finish its body: the
// processing handler decodes that JSON as it decodes a JSON body (its Template's objects are
// slices of it), so it is given back when the body is, once the handler has finished it.
type convertedBuffer struct {
	buf *[]byte
}

// JSONMemory is the memory for a document's JSON of n bytes (positions.JSONMemory): a buffer
// of the pools for the first document (the one converted), nil for any other, or past the
// pools' largest buffer.
func (c *convertedBuffer) JSONMemory(n int) []byte {
	if c.buf != nil {
		return nil
	}
	c.buf = takeBody(int64(n))
	if c.buf == nil {
		return nil
	}
	return (*c.buf)[:n:n]
}

// keepFor keeps the buffer while the handler may read it: when it holds json, the conversion
// that is the body (converted) or beside it (conversion.json); it is given back at once
// otherwise.
func (c *convertedBuffer) keepFor(json []byte, conversion convertedYAML, converted bool) {
	if c.buf == nil {
		return
	}
	if holds := len(json) > 0 && &json[0] == &(*c.buf)[0]; !holds || !converted && conversion.json == nil {
		c.give()
	}
}

// give gives the buffer back: nothing reads it any more.
func (c *convertedBuffer) give() {
	giveBody(c.buf)
	c.buf = nil
}
