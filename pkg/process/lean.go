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
	"encoding/binary"
	"unicode/utf8"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// leanReader reads the usual shapes of a template's small parts (metadata, message, labels,
// and the parameters, see lean_parameters.go) without a reflection-based decoder. Besides its
// objects, a small template is mostly these parts, and a reflection-based decoder, which
// validates the bytes before decoding them, costs more there than compiling the objects.
//
// It accepts only what it can read exactly as encoding/json would. Anything else (invalid
// UTF-8, a member it does not know, a value of the wrong type, a syntax error) sets failed,
// and the caller reads the same bytes again with its complete decoder, which also words the
// errors. So the lean path changes no result.
//
// A strict reader also fails where a strict decoder (the API server's, which refuses or
// warns of what it would drop) has something to say: a member the type does not have, a
// member or a map key written twice.
type leanReader struct {
	b      []byte
	i      int
	failed bool
	strict bool
	// strs holds the content of the strings read, which the strings read share (see
	// plainString).
	strs []byte
	// unknown, when set, lets a strict reader read on past a member the type does not have:
	// skip calls it with the member's name (member) instead of failing; element is the index
	// of the array element being read, for its path.
	unknown func(name []byte)
	member  []byte
	element int
}

func (r *leanReader) space() {
	// Compact input has no space: one comparison, inlined, tells most bytes apart.
	if r.i < len(r.b) && r.b[r.i] <= ' ' {
		r.spaceRun()
	}
}

// spaceRun is space past a space, a call of its own: with skipSpace inlined in it, space
// would be too large to be inlined where it is called, after every token, mostly at none.
//
//go:noinline
func (r *leanReader) spaceRun() { r.i = skipSpace(r.b, r.i) }

// next reports whether c comes next, and consumes it then.
func (r *leanReader) next(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// null consumes a null when one comes next.
func (r *leanReader) null() bool {
	r.space()
	if len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

// fail gives up the lean path.
func (r *leanReader) fail() { r.failed = true }

// leanStop marks the bytes a string scan stops at: its end, an escape, control characters
// and the start of multi-byte UTF-8.
var leanStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// rawString reads a string and returns it quoted, after checking it as a validating decoder
// would; plain tells that it holds no escape.
func (r *leanReader) rawString() (raw []byte, plain bool) {
	r.space()
	b := r.b
	start := r.i
	if start >= len(b) || b[start] != '"' {
		r.fail()
		return nil, false
	}
	plain = true
	for j := start + 1; j < len(b); {
		// Eight bytes at a time through the plain text of a description.
		for j+8 <= len(b) && textWord(binary.LittleEndian.Uint64(b[j:])) {
			j += 8
		}
		for j < len(b) && !leanStop[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			r.i = j + 1
			return b[start : j+1], plain
		case c == '\\':
			n, err := escapeLength(b, j)
			if err != nil {
				r.fail()
				return nil, false
			}
			plain = false
			j += n
		case c < 0x20:
			r.fail()
			return nil, false
		default:
			rn, size := utf8.DecodeRune(b[j:])
			if rn == utf8.RuneError && size == 1 {
				r.fail()
				return nil, false
			}
			j += size
		}
	}
	r.fail()
	return nil, false
}

// name reads a member name and its colon; the bytes are only valid until the next read.
func (r *leanReader) name() []byte {
	raw, plain := r.rawString()
	if r.failed || !r.next(':') {
		r.fail()
		return nil
	}
	if plain {
		return raw[1 : len(raw)-1]
	}
	return jsonbytes.StringContent(raw)
}

// str reads a string into target; null leaves target as it is, as encoding/json does.
func (r *leanReader) str(target *string) {
	if r.null() {
		return
	}
	raw, plain := r.rawString()
	switch {
	case r.failed:
	case plain:
		*target = r.plainString(raw[1 : len(raw)-1])
	default:
		*target = r.escapedString(raw)
	}
}

// escapedString is plainString of the content of raw, a quoted string with escapes, decoded
// straight into the memory the strings share: as a string of its own, each (a description
// that quotes, a script with its \n) cost two allocations, its decoded bytes and the string
// made of them.
func (r *leanReader) escapedString(raw []byte) string {
	r.reserve(len(raw) - 2) // decoded, the content is at most as long
	start := len(r.strs)
	r.strs = jsonbytes.AppendStringContent(r.strs, raw)
	return r.stringFrom(start)
}

// plainString returns content as a string that shares the memory of the strings read before:
// the strings of a template's parameters and metadata cost a few allocations, not one each,
// and only their content (about half the bytes of an indented file's parameters; making the
// whole input a string once, as this reader did, kept its layout too).
func (r *leanReader) plainString(content []byte) string {
	r.reserve(len(content))
	start := len(r.strs)
	r.strs = append(r.strs, content...)
	return r.stringFrom(start)
}

// reserve makes room in strs for n more bytes, in a new block when the one there has too
// little (the strings given keep the old one). Each new block is at most half of what is left
// to read, or n itself: all blocks together are at most twice the input's size (the halves
// once, the strings once).
func (r *leanReader) reserve(n int) {
	if cap(r.strs)-len(r.strs) < n {
		r.strs = make([]byte, 0, max(n, (len(r.b)-r.i)/2+16))
	}
}

// stringFrom returns the bytes of strs from start on as a string, without copying them. It
// is what strings.Builder does: the reader only appends to strs (and reserve starts a new
// block rather than letting append move it), so the bytes a string was given are never
// written again.
func (r *leanReader) stringFrom(start int) string {
	if start == len(r.strs) {
		return ""
	}
	return unsafe.String(&r.strs[start], len(r.strs)-start)
}

// boolean reads true, false or null (which leaves target as it is).
func (r *leanReader) boolean(target *bool) {
	r.space()
	rest := r.b[r.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*target, r.i = true, r.i+4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*target, r.i = false, r.i+5
	case r.null():
	default:
		r.fail()
	}
}

// object reads an object, calling member after each name; member reads the value. It
// returns false for null.
func (r *leanReader) object(member func(name []byte)) bool {
	if r.null() {
		return false
	}
	if !r.next('{') {
		r.fail()
		return false
	}
	if r.next('}') {
		return true
	}
	var seen names // in a strict reader
	for !r.failed {
		name := r.name()
		if r.strict && !r.failed && seen.repeated(name) {
			r.fail()
			return true
		}
		if r.unknown != nil {
			r.member = name
		}
		member(name)
		if r.failed || r.next('}') {
			break
		}
		if !r.next(',') {
			r.fail()
		}
	}
	return true
}

// names are the member names of one object read so far: a short list in place, a set past
// a few (a map of many keys must not cost the square of their number).
type names struct {
	list [16][]byte
	n    int
	set  map[string]struct{}
}

// repeated reports whether name was read before, and records it.
func (n *names) repeated(name []byte) bool {
	if n.set != nil {
		if _, ok := n.set[string(name)]; ok {
			return true
		}
		n.set[string(name)] = struct{}{}
		return false
	}
	for _, s := range n.list[:n.n] {
		if string(s) == string(name) {
			return true
		}
	}
	if n.n < len(n.list) {
		n.list[n.n] = name
		n.n++
		return false
	}
	n.set = make(map[string]struct{}, 2*len(n.list))
	for _, s := range n.list {
		n.set[string(s)] = struct{}{}
	}
	n.set[string(name)] = struct{}{}
	return false
}

// stringMap reads an object of strings into m as encoding/json reads a map[string]string:
// entries are added to a map already there, and null makes it nil.
func (r *leanReader) stringMap(m *map[string]string) {
	r.space()
	present := r.object(func(name []byte) {
		if *m == nil {
			*m = map[string]string{}
		}
		if r.null() { // a null entry is rare; its meaning is the complete decoder's
			r.fail()
			return
		}
		key := r.plainString(name) // before str reads on: name is valid until the next read
		var v string
		r.str(&v)
		(*m)[key] = v
	})
	switch {
	case !present:
		*m = nil
	case *m == nil:
		*m = map[string]string{}
	}
}

// end checks that nothing but space follows.
func (r *leanReader) end() {
	r.space()
	if r.i != len(r.b) {
		r.fail()
	}
}

// leanOpenShift reads the rest of an OpenShift template (see templateBytes) when it holds
// only its usual members; ok is false for anything else (see leanReader, which strict
// makes strict).
func leanOpenShift(rest []byte, t *openshift.Template, strict bool) (ok bool) {
	r := &leanReader{b: rest, strict: strict}
	r.object(func(name []byte) {
		switch string(name) {
		case "apiVersion":
			r.str(&t.APIVersion)
		case "kind":
			r.str(&t.Kind)
		case "message":
			r.str(&t.Message)
		case "labels":
			r.stringMap(&t.Labels)
		case "metadata":
			r.objectMeta(&t.ObjectMeta)
		default:
			r.fail()
		}
	})
	r.end()
	return !r.failed
}

// objectMeta reads the members of metadata a template usually has.
func (r *leanReader) objectMeta(m *metav1.ObjectMeta) {
	r.object(func(name []byte) {
		switch string(name) {
		case "name":
			r.str(&m.Name)
		case "generateName":
			r.str(&m.GenerateName)
		case "namespace":
			r.str(&m.Namespace)
		case "labels":
			r.stringMap(&m.Labels)
		case "annotations":
			r.stringMap(&m.Annotations)
		case "creationTimestamp":
			// null is the zero time, as metav1.Time reads it; a time is the complete decoder's.
			if !r.null() {
				r.fail()
			}
		default:
			r.fail()
		}
	})
}
