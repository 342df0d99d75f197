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
	"bytes"
	"unsafe"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// JSONTree is the structure of one JSON document, read without decoding it: the offsets of its
// values and member names (the tree an Index's lookups use). The trace of provenance reads
// each template object beside the object it wrote: a tree costs a few slices, reused from one
// object to the next, where a decoded object cost a map per object and a value per string.
// Its member lookups find the last of a repeated name, as encoding/json keeps the last.
type JSONTree struct {
	t *tree
	b treeBuilder
	// shared says t is an Index's (Document), which Read must not write over.
	shared bool
}

// JSONValue is a value of a JSONTree; NoValue is none.
type JSONValue int32

// NoValue is the JSONValue of no value.
const NoValue JSONValue = -1

// Read reads data into j, reusing j's memory: values of the previous document are no longer
// valid. It reports false when data is not one JSON value.
func (j *JSONTree) Read(data []byte) bool {
	t := j.t
	if t == nil || j.shared {
		j.shared = false
		t = &tree{}
	}
	*t = tree{data: data, nodes: t.nodes[:0], kids: t.kids[:0], byName: t.byName[:0]}
	j.b = treeBuilder{t: t, open: j.b.open[:0], pending: j.b.pending[:0], names: j.b.names[:0]}
	if len(data) >= 1<<31-1 || !j.b.run() {
		j.t = nil
		return false
	}
	j.t = t
	return true
}

// Root is the document's value.
func (j *JSONTree) Root() JSONValue {
	if j.t == nil {
		return NoValue
	}
	return 0
}

// Kind is the first byte of v: '{' an object, '[' an array, '"' a string, 't', 'f', 'n' or a
// number's first byte; 0 for NoValue.
func (j *JSONTree) Kind(v JSONValue) byte {
	if v < 0 {
		return 0
	}
	return j.t.kind(int32(v))
}

// Len is the number of members or elements of v.
func (j *JSONTree) Len(v JSONValue) int {
	if v < 0 {
		return 0
	}
	return int(j.t.nodes[v].count)
}

// Member returns the value of the last member named name of the object v, or NoValue.
func (j *JSONTree) Member(v JSONValue, name string) JSONValue {
	if k := j.Kind(v); k != '{' {
		return NoValue
	}
	if m, ok := j.t.member(int32(v), name); ok {
		return JSONValue(m)
	}
	return NoValue
}

// MemberAt returns the name (decoded) and the value of the object v's member i, in document
// order.
func (j *JSONTree) MemberAt(v JSONValue, i int) ([]byte, JSONValue) {
	k := j.t.children(int32(v))[i]
	return j.t.name(k), JSONValue(k)
}

// Element returns the element i of the array v, or NoValue.
func (j *JSONTree) Element(v JSONValue, i int) JSONValue {
	if j.Kind(v) != '[' {
		return NoValue
	}
	if e, ok := j.t.element(int32(v), i); ok {
		return JSONValue(e)
	}
	return NoValue
}

// Bytes returns the JSON of v as the document writes it.
func (j *JSONTree) Bytes(v JSONValue) []byte {
	at := int(j.t.nodes[v].value)
	end := valueEnd(j.t.data, at)
	if end < 0 {
		return nil
	}
	return j.t.data[at:end]
}

// Holds reports whether raw, which must be JSON (a compiled template's object), is the value v
// as the document writes it: a slice of the document's own bytes at v (as a template decoded
// from them holds its objects), found without reading the value, or else bytes equal to it.
func (j *JSONTree) Holds(v JSONValue, raw []byte) bool {
	at := int(j.t.nodes[v].value)
	if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') && len(raw) <= len(j.t.data)-at && unsafe.SliceData(raw) == &j.t.data[at] {
		// The same bytes from the same offset: one object or array starts there, and ends
		// at its closing bracket (a number could end early).
		return true
	}
	return bytes.Equal(j.Bytes(v), raw)
}

// Text returns the content of the string v, decoded (not copied when it has no escape).
func (j *JSONTree) Text(v JSONValue) []byte {
	at := int(j.t.nodes[v].value)
	return jsonbytes.StringContent(j.t.data[at:stringEnd(j.t.data, at)])
}

// Place is a field of an Index's document reached step by step from its root (Index.Step): a
// walk beside the document (the trace of provenance, beside the template) finds each field
// from its parent's in one step, where NearestStart follows each field's whole path from the
// root.
type Place struct {
	node int32
	// found is how many steps of the walk the document has; steps how many were taken.
	found, steps int
}

// Root is the Place of the document; false when x finds places only by whole paths.
func (x *Index) Root() (Place, bool) {
	if x == nil || x.byPath != nil {
		return Place{}, false
	}
	if t := x.structure(); t == nil || len(t.nodes) == 0 {
		return Place{}, false
	}
	return Place{}, true
}

// Step returns the Place of the member or element s of p. Past a step the document does not
// have, the Place is no longer Exact.
func (x *Index) Step(p Place, s Step) Place {
	p.steps++
	if p.found != p.steps-1 {
		return p
	}
	t := x.tree
	var n int32
	ok := false
	switch t.kind(p.node) {
	case '{':
		n, ok = t.member(p.node, s.Key)
	case '[':
		if s.IsIndex {
			n, ok = t.element(p.node, s.Index)
		}
	}
	if ok {
		p.node, p.found = n, p.found+1
	}
	return p
}

// Document is the structure of x's JSON as a JSONTree, shared with x: a walk through the
// template x indexes reads its values and their places in one tree (PlaceAt). Nil when x
// finds places only by whole paths.
func (x *Index) Document() *JSONTree {
	if _, ok := x.Root(); !ok {
		return nil
	}
	return &JSONTree{t: x.tree, shared: true}
}

// PlaceAt is the Place of the value v of x's Document, reached from the root in steps steps.
func (x *Index) PlaceAt(v JSONValue, steps int) Place {
	return Place{node: int32(v), found: steps, steps: steps}
}

// Exact says the document has every step taken to p.
func (p Place) Exact() bool { return p.found == p.steps }

// Start is where a diagnostic about the field at p points, as NearestStart of its path
// finds it when p is Exact. line is the caller's memory of the last line placed (-1 at
// first), which Start keeps: a walk places each field from the line of the one before.
func (x *Index) Start(p Place, line *int) Pos { return x.startOf(x.tree, p.node, line) }
