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
	"bytes"

	"k8s.io/apimachinery/pkg/runtime"
)

// The arrays of a template's top level whose elements are counted or taken as bytes without
// being read: nextElement skips one element at a time.

// nextElement skips the next element of the array at the scanner, past its '[' (first) or
// past the element before, and returns where it starts; done when the array closed instead.
func (s *scanner) nextElement(first bool) (at int, done bool, err error) {
	s.space()
	if s.consume(']') {
		return 0, true, nil
	}
	if !first {
		if !s.consume(',') {
			return 0, false, s.errorf("expected , or ]")
		}
		s.space()
	}
	at = s.i
	return at, false, s.skipValue(1)
}

// objects reads the array of objects at the scanner, each element as its bytes.
func (s *scanner) objects() ([]runtime.RawExtension, error) {
	if s.literal("null") {
		return nil, nil
	}
	if !s.consume('[') {
		return nil, s.errorf("objects must be an array")
	}
	// The elements are gathered on the stack and copied once into a list of their number:
	// grown element by element, the list allocated twice its size in steps.
	var gathered [32]runtime.RawExtension
	out := gathered[:0]
	for first := true; ; first = false {
		at, done, err := s.nextElement(first)
		switch {
		case err != nil:
			return nil, err
		case done:
			// [] is an empty list, null none, as for encoding/json.
			return append(make([]runtime.RawExtension, 0, len(out)), out...), nil
		}
		out = append(out, runtime.RawExtension{Raw: s.b[at:s.i:s.i]})
	}
}

// ParametersPast returns the number of elements of the template's parameters array when it
// has more than bound, else 0 (also when the member is not an array, or not well formed: its
// reader says what is wrong). It counts the elements without reading them: a decoder keeps
// about 224 bytes for every parameter however small (`{}`, 2 bytes), and the API's decoder,
// which reads what the lean reader leaves to it, grows its list as it goes, 270 bytes a byte
// of a body of empty parameters. A template of more parameters than the API allows is
// refused by its count anyway; counted first, it is refused before any of them is decoded.
// An array that cannot hold more than bound elements is not scanned: one too short (each
// element but the last takes at least two bytes with its comma), or with fewer commas than
// bound anywhere in it (those between its elements are among them). A counted pass over the
// bytes is several times cheaper than the scan, which real templates (a hundred parameters,
// a few hundred commas) never reach.
func (t *TemplateJSON) ParametersPast(bound int) int {
	data := t.top.parametersJSON
	if len(data) < 2*bound+1 || bytes.Count(data, []byte{','}) < bound {
		return 0
	}
	s := scanner{b: data}
	s.space()
	if !s.consume('[') {
		return 0
	}
	for n := 0; ; n++ {
		_, done, err := s.nextElement(n == 0)
		switch {
		case err != nil, done && n <= bound:
			return 0
		case done:
			return n
		}
	}
}
