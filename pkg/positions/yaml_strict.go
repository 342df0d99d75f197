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
	"fmt"
	"math"
	"unsafe"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// The strict conversion: sigs.k8s.io/yaml's YAMLToJSONStrict decodes with go.yaml.in/yaml/v2's
// UnmarshalStrict, which keeps the first of the values a mapping gives one key (its own or a
// merged one) and lists each later one as "line N: key K already set in map", N the line of
// that value. The fast reader lists the same, in the decoder's order, so that a strict decoder
// (the server's, for fieldValidation Strict or Warn) need not convert a document again with
// sigs.k8s.io/yaml to word its refusal.

// YAMLToJSONStrict converts the first document of YAML to JSON exactly as sigs.k8s.io/yaml's
// YAMLToJSONStrict does: the JSON YAMLToJSON gives when no mapping repeats a key, else its
// error, a *yaml.TypeError (go.yaml.in/yaml/v2) in the same words.
func YAMLToJSONStrict(data []byte) ([]byte, error) {
	p := parser{src: data, strict: true}
	if out, err := p.read(); err != errBail {
		return out, err
	}
	if err := checkFallbackExpansion(data); err != nil {
		return nil, err
	}
	return yaml.YAMLToJSONStrict(data)
}

// strictErrors walks the document in the decoder's order and returns its refusal of the keys
// mappings repeat, or nil.
func (p *parser) strictErrors(root int32) error {
	if !p.repeats {
		return nil // no mapping, merged members included, gave a key twice
	}
	s := strictWalk{p: p}
	s.visit(root)
	if len(s.errors) == 0 {
		return nil
	}
	return &yamlv2.TypeError{Errors: s.errors}
}

type strictWalk struct {
	p      *parser
	errors []string
	// free are the key sets of mappings already walked, emptied for the next mapping: a walk
	// makes a set for each level of nesting, not one for each mapping (a large document with
	// one repeated key has thousands of mappings).
	free []keySet
}

// keySet is the keys a mapping has set: strings by their text, other keys by their value.
// A text is held as a string over the document's bytes, not a copy: the sets live only as
// long as the walk, and the document's bytes do not change during it.
type keySet struct {
	typed map[typedKey]bool
	texts map[string]bool
}

// take returns an empty key set.
func (s *strictWalk) take() keySet {
	if n := len(s.free); n > 0 {
		set := s.free[n-1]
		s.free = s.free[:n-1]
		return set
	}
	return keySet{typed: map[typedKey]bool{}, texts: map[string]bool{}}
}

// give empties set for another mapping.
func (s *strictWalk) give(set keySet) {
	clear(set.typed)
	clear(set.texts)
	s.free = append(s.free, set)
}

// visit decodes node n as the decoder does: an alias's anchored node again at each alias.
// The emitter has already walked the same (and refused what expands too far).
func (s *strictWalk) visit(n int32) {
	nd := s.p.nodes[n]
	switch nd.kind {
	case kindAlias:
		s.visit(nd.a)
	case kindSequence:
		for i := nd.a; i < nd.b; i++ {
			s.visit(s.p.kids[i])
		}
	case kindMapping:
		set := s.take()
		s.mappingInto(n, set)
		s.give(set)
	}
}

// mappingInto decodes mapping n into a map holding the keys set (strings apart, by text),
// as a merge decodes the mappings it names into the map of the mapping that holds it.
func (s *strictWalk) mappingInto(n int32, set keySet) {
	nd := s.p.nodes[n]
	for i := nd.a; i < nd.b; i += 2 {
		k, v := s.p.kids[i], s.p.kids[i+1]
		if s.p.isMerge(k) {
			s.merge(v, set)
			continue
		}
		text, typed := s.p.keyText(k)
		s.visit(v)
		var already bool
		if typed.kind == resolvedString {
			key := unsafe.String(unsafe.SliceData(text), len(text))
			already, set.texts[key] = set.texts[key], true
		} else {
			already, set.typed[typed] = set.typed[typed], true
		}
		if already {
			s.errors = append(s.errors, fmt.Sprintf("line %d: key %#v already set in map", s.line(v), keyValue(text, typed)))
		}
	}
}

// merge applies a merge key's value: a mapping, an alias of one, or a sequence of those, the
// last first (the emitter has refused any other).
func (s *strictWalk) merge(v int32, set keySet) {
	switch nd := s.p.nodes[v]; nd.kind {
	case kindMapping:
		s.mappingInto(v, set)
	case kindAlias:
		s.mappingInto(s.p.mergeTarget(v), set)
	case kindSequence:
		for i := nd.b - 1; i >= nd.a; i-- {
			child := s.p.kids[i]
			if s.p.nodes[child].kind == kindAlias {
				child = s.p.mergeTarget(child)
			}
			s.mappingInto(child, set)
		}
	}
}

// line is the decoder's line of node v: where its content starts. An anchored node starts at
// its anchor, an empty one (null) at the token after it: places the fast reader does not
// keep, left to sigs.k8s.io/yaml.
func (s *strictWalk) line(v int32) int {
	nd := s.p.nodes[v]
	if nd.flags&nodeAnchored != 0 || nd.kind == kindScalar && nd.style == stylePlain && !nd.inArena && nd.a == nd.b {
		bail()
	}
	return bytes.Count(s.p.src[s.p.base:nd.pos], []byte("\n")) + 1
}

// keyValue is the Go value the decoder holds a key as, which its message prints with %#v.
func keyValue(text []byte, typed typedKey) any {
	switch typed.kind {
	case resolvedBool:
		return typed.num == 1
	case resolvedInt:
		return int(int64(typed.num))
	case resolvedFloat:
		return math.Float64frombits(typed.num)
	}
	return string(text)
}
