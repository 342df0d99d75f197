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
	"encoding/binary"
	"slices"
)

// Writing JSON from the tree, as YAMLToJSON writes it: go.yaml.in/yaml/v2 decodes the
// document into map[interface{}]interface{} (keys typed as their scalars resolve, merge keys
// applied in order, the last of duplicate keys kept), sigs.k8s.io/yaml turns the keys into
// strings, and encoding/json writes the maps with sorted keys.

// emitter writes the JSON of a parsed document.
type emitter struct {
	p   *parser
	out []byte
	// assigns holds the members of the mappings being written, each mapping's above the
	// mapping that contains it; assigned is the most it held (how far releaseScratch clears).
	assigns  []assign
	assigned int
	// discarded counts what was written and taken back (discard): work the bound counts too.
	discarded int
	// depth is how many collections enclose what is written, deepest their most; top, when
	// set, records the top-level members and the elements of their sequences (yaml_top.go).
	depth, deepest int
	top            *Top
}

// assign is one member of a mapping as the decoder sets it: its key as text and as typed,
// the nodes of key and value, and its order.
type assign struct {
	key []byte
	// prefix is the key's first eight bytes, big-endian, zeros past its end: two keys whose
	// prefixes differ are ordered as their prefixes (keyPrefix), most compared without a call.
	prefix     uint64
	typed      typedKey
	knode, val int32
}

// typedKey is a key as go.yaml.in/yaml/v2 holds it in its map: two keys are one map entry
// when their type and value are the same.
type typedKey struct {
	kind uint8 // a resolvedKind
	num  uint64
}

func (p *parser) emitDocument(root int32) []byte {
	if root < 0 {
		if p.positions {
			p.entries = append(p.entries, entry{key: -1}) // an empty document: null, at the start
		}
		return []byte("null")
	}
	if p.hasAliases {
		p.checkAliases(root)
	}
	// The JSON is the scalars' text, about four bytes of quotes, colons and commas a node,
	// and escapes (an eighth more here; a string of many grows the buffer once, as aliases
	// do): about 0.8 of the YAML's size on the corpus, which the source's size overestimates.
	text := len(p.arena) + p.runBytes
	size := min(text+text/8+4*len(p.nodes)+64, len(p.src)+len(p.src)/4+64)
	e := emitter{p: p, out: p.scratchOut(size), assigns: p.assigns[:0], top: p.top}
	// Also when the emitter gives up (bail, a bound) in a mapping: what it wrote of its
	// members is cleared as the read releases its memory.
	defer func() { p.assigns, p.assigned = e.assigns, max(p.assigned, e.assigned, len(e.assigns)) }()
	e.record(-1, p.nodes[root].pos)
	e.value(root)
	if p.top != nil {
		p.top.Mapping, p.top.Depth = p.nodes[root].kind == kindMapping, e.deepest
	}
	p.written = len(e.out) + e.discarded
	return p.keepOut(e.out)
}

// room refuses the document once what it writes, n bytes more, would pass the parser's
// limit: aliases (and the values that repeated keys replace, which are written and taken
// back) can make a few bytes of YAML stand for any number of bytes of JSON, and the bound is
// on bytes, whatever the number of nodes. A value passes the limit by one scalar at most.
func (e *emitter) room(n int) {
	if len(e.out)+e.discarded+n > e.p.limit {
		panic(&ExpansionError{Source: e.p.sourceBytes, Limit: e.p.limit})
	}
}

// record notes the places of what is written next: a member (its name at key, its value at
// src) or an element (key -1).
func (e *emitter) record(key, src int32) {
	if e.p.positions {
		e.p.entries = append(e.p.entries, entry{json: int32(len(e.out)), key: key, src: src})
	}
}

// value writes node n; its place is recorded by the caller (an alias's own place, not its
// anchor's).
func (e *emitter) value(n int32) {
	nd := &e.p.nodes[n]
	if nd.kind != kindScalar {
		// A scalar is bounded below by its own bytes, which the bound counts (room(0) would
		// refuse nothing that room(len) does not).
		e.room(0)
	}
	if nd.kind == kindAlias {
		e.value(nd.a)
		return
	}
	switch nd.kind {
	case kindScalar:
		text := e.p.text(n)
		if nd.flags&nodeEscaped != 0 {
			// The bound counts the value's bytes, as for any other, not its escaped text's.
			e.room(int(binary.LittleEndian.Uint32(e.p.arena[nd.a-4 : nd.a])))
			e.out = appendClean(e.out, text)
			return
		}
		e.room(len(text))
		if nd.style == styleQuoted {
			if nd.flags&nodeClean != 0 {
				e.out = appendClean(e.out, text)
				return
			}
			e.out = appendJSONString(e.out, text)
			return
		}
		e.out = appendResolved(e.out, text, nd.flags&nodeClean != 0)
	case kindSequence:
		elements := e.top != nil && e.depth == 1 // the value of a top-level member
		if elements {
			e.top.Elements = slices.Grow(e.top.Elements, int(nd.b-nd.a))
		}
		e.enter()
		e.out = append(e.out, '[')
		for i := nd.a; i < nd.b; i++ {
			if i > nd.a {
				e.out = append(e.out, ',')
			}
			child := e.p.kids[i]
			if e.p.positions { // tested here: the argument's load is not free
				e.record(-1, e.p.nodes[child].pos)
			}
			at := len(e.out)
			e.value(child)
			if elements {
				e.top.Elements = append(e.top.Elements, Extent{at, len(e.out)})
			}
		}
		e.out = append(e.out, ']')
		e.depth--
	case kindMapping:
		e.mapping(n)
	}
}

// mapping writes a mapping's members sorted by key, the last assignment of each key winning.
func (e *emitter) mapping(n int32) {
	mark := len(e.assigns)
	e.gather(n)
	members := e.assigns[mark:]
	sortMembers(members)
	top := e.top != nil && e.depth == 0
	if top {
		e.top.Members = make([]Member, 0, len(members))
	}
	e.enter()
	e.out = append(e.out, '{')
	first, end := true, len(e.assigns)
	for i := mark; i < end; {
		j := i + 1
		for j < end && e.assigns[j].prefix == e.assigns[i].prefix && bytes.Equal(e.assigns[j].key, e.assigns[i].key) {
			if e.assigns[j].typed != e.assigns[i].typed {
				bail() // keys that differ in YAML but not as strings: YAMLToJSON picks one at random
			}
			j++
		}
		if j > i+1 {
			e.p.repeats = true
			// YAMLToJSON decodes the values a later one replaces too, and fails on what fails
			// in them (a merge of a scalar): write each and take it back.
			for k := i; k < j-1; k++ {
				e.discard(e.assigns[k].val)
			}
		}
		last := &e.assigns[j-1]
		if !first {
			e.out = append(e.out, ',')
		}
		first = false
		if e.p.positions {
			e.record(e.p.nodes[last.knode].pos, e.p.nodes[last.val].pos)
		}
		keyAt, elements := len(e.out), 0
		if top {
			elements = len(e.top.Elements)
		}
		if e.p.nodes[last.knode].flags&nodeClean != 0 {
			e.out = appendClean(e.out, last.key) // a key resolved to another text writes none to escape
		} else {
			e.out = appendJSONString(e.out, last.key)
		}
		keyEnd := len(e.out)
		e.out = append(e.out, ':')
		e.value(last.val)
		if top {
			e.top.Members = append(e.top.Members, Member{Key: Extent{keyAt, keyEnd}, Value: Extent{keyEnd + 1, len(e.out)},
				Elements: Extent{elements, len(e.top.Elements)}})
		}
		i = j
	}
	e.out = append(e.out, '}')
	e.depth--
	e.assigned = max(e.assigned, len(e.assigns))
	e.assigns = e.assigns[:mark]
}

// enter counts a collection opened.
func (e *emitter) enter() {
	if e.depth++; e.depth > e.deepest {
		e.deepest = e.depth
	}
}

// discard writes node n as value does, then takes back what it wrote and recorded: n is decoded
// only for the errors it raises.
func (e *emitter) discard(n int32) {
	out, entries := len(e.out), len(e.p.entries)
	elements := 0
	if e.top != nil {
		elements = len(e.top.Elements)
	}
	e.value(n)
	e.discarded += len(e.out) - out
	e.out = e.out[:out]
	e.p.entries = e.p.entries[:entries]
	if e.top != nil {
		e.top.Elements = e.top.Elements[:elements]
	}
}

// gather appends the assignments of mapping n, its merge keys' included, in the decoder's
// order.
func (e *emitter) gather(n int32) {
	nd := e.p.nodes[n]
	for i := nd.a; i < nd.b; i += 2 {
		k, v := e.p.kids[i], e.p.kids[i+1]
		if kn := &e.p.nodes[k]; kn.kind == kindScalar && kn.style == stylePlain && !kn.inArena {
			// Most keys are plain names that are strings by their first byte or length
			// (stringKey), read here at once; a merge key (<<) starts with a byte of those.
			key := e.p.src[kn.a:kn.b]
			if stringKey(key) && !(len(key) == 2 && key[0] == '<' && key[1] == '<') {
				e.assigns = append(e.assigns, assign{key: key, prefix: keyPrefix(key), typed: typedKey{kind: resolvedString}, knode: k, val: v})
				continue
			}
		}
		if e.p.isMerge(k) {
			e.merge(v)
			continue
		}
		key, typed := e.p.keyText(k)
		e.assigns = append(e.assigns, assign{key: key, prefix: keyPrefix(key), typed: typed, knode: k, val: v})
	}
}

// merge applies the value of a merge key: a mapping, an alias of one, or a sequence of those,
// the earlier ones winning.
func (e *emitter) merge(v int32) {
	switch nd := e.p.nodes[v]; nd.kind {
	case kindMapping:
		e.gather(v)
	case kindAlias:
		e.gather(e.p.mergeTarget(v))
	case kindSequence:
		for i := nd.b - 1; i >= nd.a; i-- {
			child := e.p.kids[i]
			if e.p.nodes[child].kind == kindAlias {
				e.gather(e.p.mergeTarget(child))
				continue
			}
			if e.p.nodes[child].kind != kindMapping {
				bail()
			}
			e.gather(child)
		}
	default:
		bail() // map merge requires map or sequence of maps as the value
	}
}

// mergeTarget is the mapping an alias in a merge names.
func (p *parser) mergeTarget(alias int32) int32 {
	t := p.nodes[alias].a
	if p.nodes[t].kind != kindMapping {
		bail()
	}
	return t
}

// isMerge reports a merge key: the plain scalar <<.
func (p *parser) isMerge(k int32) bool {
	nd := &p.nodes[k]
	return nd.kind == kindScalar && nd.style == stylePlain && !nd.inArena && nd.b-nd.a == 2 &&
		p.src[nd.a] == '<' && p.src[nd.a+1] == '<'
}

// text returns a scalar's value. Its capacity runs on into the memory it lies in, for
// appendJSONString to read a short one in words: nothing may append to it.
func (p *parser) text(n int32) []byte {
	nd := &p.nodes[n]
	if nd.inArena {
		return p.arena[nd.a:nd.b]
	}
	return p.src[nd.a:nd.b]
}

// keyText returns a key as sigs.k8s.io/yaml writes it and as the decoder types it.
func (p *parser) keyText(k int32) ([]byte, typedKey) {
	nd := &p.nodes[k]
	if nd.kind != kindScalar {
		bail() // an alias or a collection as a key
	}
	text := p.text(k)
	if nd.style == styleQuoted || stringKey(text) {
		return text, typedKey{kind: resolvedString}
	}
	return resolveKey(text)
}

// stringKey reports a plain scalar that resolves to a string by its first byte, or as a word
// that is not one of the decoder's (name, type): most keys are names. Its first test is
// inlined where it is asked, once a key.
func stringKey(text []byte) bool {
	return len(text) > 0 && (resolveStarts[text[0]] == startsString || stringWordKey(text))
}

// stringWordKey is stringKey past its first test (not inlined, for stringKey to be).
//
//go:noinline
func stringWordKey(text []byte) bool {
	if resolveStarts[text[0]] == startsWord {
		_, _, word := resolveWord(text)
		return !word
	}
	return false
}
