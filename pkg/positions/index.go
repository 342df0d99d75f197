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
	"sort"
	"strconv"
	"sync"
)

// Pos is a place in a file: a 1-based line and column (the column counts characters, as
// editors and `path:line:col` annotators do) and the byte offset. The zero Pos is unknown.
type Pos struct {
	Line, Column, Offset int
}

// IsValid reports whether p names a place.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String writes line:column, or "-" when p is unknown.
func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

// Span is where a field was written: its member name (unknown for an array element and the
// document itself) and its value.
type Span struct {
	Key, Value Pos
}

// Start is where a diagnostic about the field points: its member name, else its value.
func (s Span) Start() Pos {
	if s.Key.IsValid() {
		return s.Key
	}
	return s.Value
}

// Index maps the field paths of the JSON a file was read into to places in the file. It is
// immutable once Read returns it and safe for concurrent use. A nil *Index knows no place, so
// that callers without a file need no special case.
type Index struct {
	file string
	src  []byte
	json []byte
	// entries map offsets in json to offsets in src, in increasing json order (YAML): one
	// per member, at its name, and one per element and for the document, at its value.
	// identity says json is src itself (JSON input).
	entries  []entry
	identity bool
	// byPath holds the places of a file the fast reader handed to YAMLToJSON, by path
	// (fallback.go).
	byPath map[string]Span

	linesOnce sync.Once
	lines     []int // offset of each line's start in src
	runesOnce sync.Once
	runes     []int // characters of src before each runeBlock bytes, for long lines

	// tree is the structure of json, for lookups (tree.go). entryPerNode says that the YAML
	// reader's entries are one per node of the tree, in its order (they are written in the
	// same order of the same JSON): a node's places are then its entry's.
	treeOnce     sync.Once
	tree         *tree
	entryPerNode bool
}

// entry is the place of what the JSON has at offset json: a member's name (key) and value
// (src), or, key -1, an element or the document (src).
type entry struct{ json, key, src int32 }

// File is the name the file was read under ("" for a request body).
func (x *Index) File() string {
	if x == nil {
		return ""
	}
	return x.file
}

// JSON returns the JSON the file was read into. The caller must not change it.
func (x *Index) JSON() []byte {
	if x == nil {
		return nil
	}
	return x.json
}

// Lookup returns where the field at path (as ParsePath reads it) was written.
func (x *Index) Lookup(path string) (Span, bool) {
	p, err := ParsePath(path)
	if err != nil {
		return Span{}, false
	}
	return x.LookupPath(p)
}

// LookupPath returns where the field at p was written.
func (x *Index) LookupPath(p Path) (Span, bool) {
	if x == nil {
		return Span{}, false
	}
	if x.byPath != nil {
		s, ok := x.byPath[p.String()]
		return s, ok
	}
	t := x.structure()
	nd, n := t.deepest(p)
	if n != len(p) {
		return Span{}, false
	}
	return x.spanOf(t, nd), true
}

// Nearest returns where the field at p was written, or, when the document has no such field
// (a field a step of processing added), where its closest ancestor that the file has was
// written, with the length of that ancestor's path.
func (x *Index) Nearest(p Path) (Span, int) {
	if x == nil {
		return Span{}, -1
	}
	if x.byPath != nil {
		// p[:n].String() is a prefix of p.String(): one string, cut at each step.
		full, ends := p.stringEnds()
		for n := len(p); n >= 0; n-- {
			if s, ok := x.byPath[full[:ends[n]]]; ok {
				return s, n
			}
		}
		return Span{}, -1
	}
	t := x.structure()
	nd, n := t.deepest(p)
	if n < 0 {
		return Span{}, -1
	}
	return x.spanOf(t, nd), n
}

// NearestStart is Nearest's Span.Start: where a diagnostic about the field at p, or its
// closest ancestor that the document has, points, with the length of that ancestor's path.
func (x *Index) NearestStart(p Path) (Pos, int) {
	if x == nil || x.byPath != nil {
		s, n := x.Nearest(p)
		return s.Start(), n
	}
	t := x.structure()
	nd, n := t.deepest(p)
	if n < 0 {
		return Pos{}, -1
	}
	return x.startOf(t, nd, nil), n
}

// startOf is where a diagnostic about the field of the node nd points; hint is posOf's.
func (x *Index) startOf(t *tree, nd int32, hint *int) Pos {
	switch node := t.nodes[nd]; {
	case x.identity && node.key >= 0:
		return x.posOf(int(node.key), hint)
	case x.identity:
		return x.posOf(int(node.value), hint)
	case x.entryPerNode && x.entries[nd].key >= 0:
		return x.posOf(int(x.entries[nd].key), hint)
	case x.entryPerNode:
		return x.posOf(int(x.entries[nd].src), hint)
	}
	return x.spanOf(t, nd).Start()
}

// Place returns where a diagnostic about the field at path (as ParsePath reads it) points:
// the field, or its closest ancestor that the file has, but not the document as a whole.
func (x *Index) Place(path string) (Pos, bool) {
	p, err := ParsePath(path)
	if err != nil || len(p) == 0 {
		return Pos{}, false
	}
	at, n := x.NearestStart(p)
	return at, n > 0 && at.IsValid()
}

// Locate writes file:line:col for the field at path (line:col without a file name), or ""
// when the place is unknown: the prefix of a diagnostic in the form editors and CI read.
func (x *Index) Locate(path string) string {
	p, err := ParsePath(path)
	if err != nil {
		return ""
	}
	at, n := x.NearestStart(p)
	if n < 0 || n == 0 && len(p) > 0 || !at.IsValid() {
		return ""
	}
	if x.file == "" {
		return at.String()
	}
	return x.file + ":" + at.String()
}

// structure returns the tree of x.json, read on the first lookup.
func (x *Index) structure() *tree {
	x.treeOnce.Do(func() {
		values := len(x.entries)
		if values == 0 {
			// A file's own JSON: a value per member or element, at most one per colon, comma
			// and opening bracket, and the document (those inside strings count too), and
			// never more than the values JSON of its length can hold (0,0,...): the bound
			// only sizes the arrays.
			values = min(bytes.Count(x.json, []byte(":"))+bytes.Count(x.json, []byte(","))+bytes.Count(x.json, []byte("["))+1, len(x.json)/2+1)
		}
		x.tree = buildTree(x.json, values)
		x.entryPerNode = x.tree != nil && !x.identity && x.byPath == nil && len(x.entries) == len(x.tree.nodes)
		for i := 0; x.entryPerNode && i < len(x.entries); i++ {
			n, at := x.tree.nodes[i], x.tree.nodes[i].value
			if n.key >= 0 {
				at = n.key
			}
			x.entryPerNode = x.entries[i].json == at
		}
	})
	return x.tree
}

// spanOf returns the places of the field of the node nd.
func (x *Index) spanOf(t *tree, nd int32) Span {
	if x.entryPerNode {
		e := x.entries[nd]
		return Span{Key: x.PosOf(int(e.key)), Value: x.PosOf(int(e.src))}
	}
	n := t.nodes[nd]
	return x.span(int(n.key), int(n.value))
}

// span returns the places of the field whose member name (-1 for none) and value are at
// these offsets of x.json.
func (x *Index) span(key, value int) Span {
	if x.identity {
		return Span{Key: x.PosOf(key), Value: x.PosOf(value)}
	}
	at := value
	if key >= 0 {
		at = key
	}
	i := sort.Search(len(x.entries), func(i int) bool { return int(x.entries[i].json) >= at })
	if i == len(x.entries) || int(x.entries[i].json) != at {
		return Span{}
	}
	e := x.entries[i]
	return Span{Key: x.PosOf(int(e.key)), Value: x.PosOf(int(e.src))}
}

// Walk calls fn for every field under prefix (the whole document for an empty prefix) in the
// order of the JSON, with its path and span, until fn returns false.
func (x *Index) Walk(prefix Path, fn func(Path, Span) bool) {
	if x == nil {
		return
	}
	if x.byPath != nil {
		walkByPath(x.byPath, prefix, fn)
		return
	}
	x.walkOffsets(prefix, func(p Path, key, value int) bool {
		return fn(p, x.span(key, value))
	})
}

// walkOffsets is Walk with the offsets of each field's member name and value in the JSON.
func (x *Index) walkOffsets(prefix Path, fn func(p Path, key, value int) bool) {
	t := x.structure()
	nd, n := t.deepest(prefix)
	if n != len(prefix) {
		return
	}
	t.walkFrom(nd, append(Path(nil), prefix...), fn)
}

// PathAt returns the innermost field written at or before line and column and on that line
// or the lines of its value: the field whose member name or value starts closest before it.
func (x *Index) PathAt(line, column int) (Path, bool) {
	if x == nil {
		return nil, false
	}
	target := x.offsetOf(line, column)
	if target < 0 {
		return nil, false
	}
	var best Path
	bestAt, found := -1, false
	x.Walk(nil, func(p Path, s Span) bool {
		for _, at := range []Pos{s.Key, s.Value} {
			if at.IsValid() && at.Offset <= target && at.Offset >= bestAt {
				bestAt, best, found = at.Offset, append(Path(nil), p...), true
			}
		}
		return true
	})
	return best, found
}
