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
	"encoding/json"
	"errors"
	"fmt"
)

// Read reads the first document of a YAML or JSON file into JSON bytes and an Index of where
// each field was written. file names the file in the Index ("" for a request body). JSON (an
// object or array, valid) is kept as it is. YAML gives exactly what sigs.k8s.io/yaml's
// YAMLToJSON gives, errors included. The Index shares data: data must not change while the
// Index is used.
func Read(file string, data []byte) (*Index, error) {
	if looksLikeJSON(data) && json.Valid(data) {
		return &Index{file: file, src: data, json: data, identity: true}, nil
	}
	return ReadDocument(file, data, 0)
}

// ReadJSON indexes data as the JSON it is, without checking that it is JSON (which Read does
// at a cost of about 30 instructions a byte): for a caller whose decoder validates it anyway.
// Lookups in bytes that turn out not to be JSON find nothing rather than fail.
func ReadJSON(file string, data []byte) *Index {
	return &Index{file: file, src: data, json: data, identity: true}
}

// ReadDocument reads, as YAML, the first document of data[start:], where start is the start
// of a line (a document of a stream after its "---"), with places in the whole of data.
func ReadDocument(file string, data []byte, start int) (*Index, error) {
	if start < 0 || start > len(data) || start > 0 && data[start-1] != '\n' {
		return nil, fmt.Errorf("%d is not the start of a line", start)
	}
	x := &Index{file: file, src: data}
	p := parser{src: data, positions: true, pos: start, lineStart: start}
	if out, err := p.read(); err != errBail {
		if err != nil {
			return nil, err
		}
		x.json, x.entries = out, p.entries
		return x, nil
	}
	out, err := fallback(data[start:])
	if err != nil {
		return nil, err
	}
	x.json, x.byPath = out, fallbackPositions(data, start)
	return x, nil
}

// YAMLToJSON converts the first document of YAML to JSON exactly as sigs.k8s.io/yaml's
// YAMLToJSON does, errors included, without the Index (and its cost).
func YAMLToJSON(data []byte) ([]byte, error) {
	p := parser{src: data}
	if out, err := p.read(); err != errBail {
		return out, err
	}
	return fallback(data)
}

// YAMLToJSONRepeats is YAMLToJSON, also saying whether a mapping of the document may repeat
// a key (its own, or one a merge key brings): what a strict decoder must then ask
// sigs.k8s.io/yaml's YAMLToJSONStrict about, which refuses some of them. It is always true
// when the fast reader left the input to sigs.k8s.io/yaml.
func YAMLToJSONRepeats(data []byte) (out []byte, repeats bool, err error) {
	p := parser{src: data}
	if out, err := p.read(); err != errBail {
		return out, p.repeats, err
	}
	out, err = fallback(data)
	return out, true, err
}

func looksLikeJSON(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// errBail stops the fast reader: what it read is left to YAMLToJSON, whose answer is exact.
var errBail = errors.New("left to YAMLToJSON")

// maxDepth bounds the nesting the fast reader follows (libyaml allows 10000: deeper
// documents than this one are left to it).
const maxDepth = 1000

// parser is the fast reader: a parser of the YAML templates are written in, into a tree of
// nodes over the source (parse), then JSON written from the tree (emit.go).
type parser struct {
	src       []byte
	positions bool

	pos       int // the next byte to read
	lineStart int // offset of the current line's start
	depth     int

	nodes []node
	kids  []int32 // children of collections, pairs for mappings
	stack []int32 // children of the collections being read
	arena []byte  // scalar values that are not a run of src
	// assigns is the emitter's (yaml_emit.go), assigned the most members it held in this
	// read; scratch, where the slices above come from (yaml_scratch.go).
	assigns  []assign
	assigned int
	scratch  *scratch
	// into, when set, gives the memory a document's JSON is copied into (keepOut).
	into JSONMemory
	// anchors are the anchors defined so far, the latest last; pending is the anchor read
	// before the node it names.
	anchors    []anchor
	pending    string
	hasPending bool
	hasAliases bool

	// slots counts the members and elements read: the places the Index records (but for
	// what aliases repeat).
	slots   int
	entries []entry
	// repeats says a mapping written had a key more than once (merged members included).
	repeats bool
	// limit bounds what the emitter writes (MaxJSONBytes of the source); zero means that
	// default. sourceBytes is the size of the source read, from where the document starts;
	// written is what the emitter wrote, what it took back included.
	limit, sourceBytes, written int
	// strict refuses a key a mapping repeats, as YAMLToJSONStrict does (yaml_strict.go).
	strict bool
	// base is where the document read starts: the strict decoder's line numbers count from it.
	base int
	// runBytes adds up the scalars that are runs of src (the others are the arena): with the
	// number of nodes, a close bound on the JSON's size, to allocate it once.
	runBytes int
	// keyAt and colonAt: keyAhead found at keyAt a plain key that ends at the ':' at colonAt,
	// holding no byte to escape when keyClean.
	keyAt, colonAt int
	keyClean       bool
	// hasTabs says the source holds a tab; tabs counts those read as text (checkTabs).
	hasTabs bool
	tabs    int
	// markerLines has newline check each line for plainMarkers (a stream's read).
	markerLines bool
	// top, when set, receives where the top-level members lie in the JSON (yaml_top.go).
	top *Top
}

type anchor struct {
	name string
	node int32
}

// node kinds and scalar styles.
const (
	kindScalar uint8 = iota
	kindMapping
	kindSequence
	kindAlias
)

const (
	stylePlain  uint8 = iota // resolved as YAML 1.1 does: null, bool, int, float or string
	styleQuoted              // quoted and block scalars: always strings
)

// node is one node of the tree. A scalar's value is src[a:b], or arena[a:b] when inArena; a
// collection's children are kids[a:b] (key, value pairs for a mapping); an alias names its
// anchored node in a. pos is where the node's content starts in src.
type node struct {
	kind, style uint8
	inArena     bool
	flags       uint8
	pos         int32
	a, b        int32
}

// node flags. anchored: the decoder places the node at its anchor, which pos does not say.
// clean: the scalar's value is a run of src that holds no byte a JSON string escapes (the
// reader saw each of its bytes). escaped: its text is its JSON string's content, written as
// the scalar was read (a block scalar; the four bytes before it in the arena hold how long
// the value is unescaped: blockScalar). A clean or escaped scalar is written as it is, not
// checked again. (Flags, not fields: a node of 16 bytes, of which a large document has one
// every few bytes.)
const (
	nodeAnchored uint8 = 1 << iota
	nodeClean
	nodeEscaped
)

// read parses and emits the first document. errBail means the input is left to YAMLToJSON;
// an *ExpansionError, that its aliases expand it past p.limit, which no reader may write.
func (p *parser) read() (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			if refusal, ok := r.(*ExpansionError); ok {
				out, err = nil, refusal
				return
			}
			out, err = nil, errBail // errBail, or any other surprise: the exact path decides
		}
	}()
	ok, tabs := printable(p.src[p.pos:])
	if len(p.src) > 1<<31-1 || !ok {
		return nil, errBail
	}
	p.hasTabs = tabs
	p.sourceBytes = len(p.src) - p.pos
	p.base = p.pos
	if p.limit == 0 {
		p.limit = MaxJSONBytes(p.sourceBytes)
	}
	if bytes.HasPrefix(p.src[p.pos:], []byte("\xef\xbb\xbf")) {
		p.pos += 3
		p.lineStart = p.pos
	}
	p.takeScratch(p.sourceBytes)
	defer p.releaseScratch()
	root := p.document()
	p.checkTabs(p.base)
	if p.positions {
		p.entries = make([]entry, 0, p.slots+1)
	}
	out = p.emitDocument(root)
	if p.strict && root >= 0 {
		if err := p.strictErrors(root); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func bail() { panic(errBail) }

// checkTabs leaves the document read from start to YAMLToJSON unless each of its tabs was
// taken where libyaml takes a tab as text or as a space: inside a quoted scalar, a block
// scalar's line or a comment, between the words of a plain scalar (p.tabs counts those). A
// tab anywhere else (indentation, before a value) has rules of its own in libyaml, often an
// error, which the fast reader does not follow: counting is simpler and safer than checking
// every place a tab could reach.
func (p *parser) checkTabs(start int) {
	if p.hasTabs && bytes.Count(p.src[start:p.pos], []byte{'\t'}) != p.tabs {
		bail()
	}
}

// document reads the first document of the stream; -1 is an empty one (null).
func (p *parser) document() int32 {
	p.skipToToken()
	if p.eof() {
		return -1
	}
	if p.column() == 0 && p.src[p.pos] == '%' {
		bail() // directives
	}
	if p.atMarker('-') {
		p.pos += 3
		p.lineEnd()
		p.skipToToken()
	} else if p.atMarker('.') {
		bail()
	}
	if p.eof() || p.atMarker('-') || p.atMarker('.') {
		return -1
	}
	root := p.blockNode(-1)
	if !p.eof() && !p.atMarker('-') && !p.atMarker('.') {
		bail()
	}
	return root
}

// newNode appends a node, naming it by the pending anchor.
func (p *parser) newNode(kind, style uint8, pos int) int32 {
	n := int32(len(p.nodes))
	p.nodes = append(p.nodes, node{kind: kind, style: style, pos: int32(pos)})
	if p.hasPending {
		p.anchors = append(p.anchors, anchor{name: p.pending, node: n})
		p.hasPending = false
		p.nodes[n].flags |= nodeAnchored
	}
	return n
}

// enter and leave bound the nesting.
func (p *parser) enter() {
	if p.depth++; p.depth > maxDepth {
		bail()
	}
}

func (p *parser) leave() { p.depth-- }

// collect ends the children of a collection begun at stack mark.
func (p *parser) collect(n int32, mark int) {
	if p.nodes[n].kind == kindMapping {
		p.slots += (len(p.stack) - mark) / 2
	} else {
		p.slots += len(p.stack) - mark
	}
	p.nodes[n].a = int32(len(p.kids))
	p.kids = append(p.kids, p.stack[mark:]...)
	p.nodes[n].b = int32(len(p.kids))
	p.stack = p.stack[:mark]
}
