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
type jsonObject []jsonMember

type jsonMember struct {
	name  string
	value any
}

// sorted is the object's members by name, those of one name in the order written: the order
// of the errors of one body does not depend on the order of its members.
func (o jsonObject) sorted() jsonObject {
	out := append(jsonObject(nil), o...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// MarshalJSON writes the object with every member, as written.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		value, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeMembers reads the first JSON value of data as encoding/json reads it into an any
// (numbers as json.Number), but with objects as jsonObject. ok is false for invalid JSON or
// JSON nested deeper than maxJSONDepth.
func decodeMembers(data []byte) (v any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeMember(dec, 0)
	return v, err == nil
}

func decodeMember(dec *json.Decoder, depth int) (any, error) {
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
			item, err := decodeMember(dec, depth+1)
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		_, err := dec.Token() // ]
		return items, err
	}
	object := jsonObject{}
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return nil, err
		}
		value, err := decodeMember(dec, depth+1)
		if err != nil {
			return nil, err
		}
		object = append(object, jsonMember{name: name.(string), value: value})
	}
	_, err = dec.Token() // }
	return object, err
}
