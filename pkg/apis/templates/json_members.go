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

package templates

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
)

// maxJSONDepth is encoding/json's own bound on nesting: a deeper value is refused by the
// decoder whose error JSONTypeErrors words, and its message stands.
const maxJSONDepth = 10000

var errTooDeep = errors.New("nested too deep")

// jsonObject is a JSON object as its text has it: every member in order, a name written twice
// kept twice. Decoded into a map, a repeated member keeps only its last value, but the API's
// decoders read (and refuse the type of) each one: `{"enum":"","enum":[""]}` is refused for
// its first enum.
type jsonObject struct {
	members []jsonMember
	// raw is the object's text, which an error shows (compacted), repeats and all.
	raw []byte
}

type jsonMember struct {
	name  string
	value any
}

// sorted is the object's members by name, those of one name in the order written: the order
// of the errors of one body does not depend on the order of its members.
func (o jsonObject) sorted() []jsonMember {
	out := append([]jsonMember(nil), o.members...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// MarshalJSON is the object's text as written, compacted.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := json.Compact(&b, o.raw)
	return b.Bytes(), err
}

// decodeMembers reads the first JSON value of data as encoding/json reads it into an any
// (numbers as json.Number), but with objects as jsonObject. ok is false for invalid JSON or
// JSON nested deeper than maxJSONDepth.
func decodeMembers(data []byte) (v any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeMember(dec, data, 0)
	return v, err == nil
}

func decodeMember(dec *json.Decoder, data []byte, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= maxJSONDepth {
		return nil, errTooDeep
	}
	if delim == '[' {
		items := []any{}
		for dec.More() {
			item, err := decodeMember(dec, data, depth+1)
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		_, err := dec.Token() // ]
		return items, err
	}
	// The object's '{' is the byte before the decoder's offset past it.
	start := dec.InputOffset() - 1
	var object jsonObject
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return nil, err
		}
		value, err := decodeMember(dec, data, depth+1)
		if err != nil {
			return nil, err
		}
		object.members = append(object.members, jsonMember{name: name.(string), value: value})
	}
	if _, err := dec.Token(); err != nil { // }
		return nil, err
	}
	object.raw = data[start:dec.InputOffset()]
	return object, nil
}
