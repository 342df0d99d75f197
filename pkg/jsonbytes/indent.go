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

package jsonbytes

import (
	"bytes"
	"encoding/json"
)

// Indent returns the JSON value in data as encoding/json's Indent writes it with no prefix:
// every member and element on its own line, indented by indent per level, empty objects and
// arrays staying {} and []. Valid, compact input is indented by Compacted.Indent; other input
// goes through encoding/json, so that it is kept as it is and refused alike.
func Indent(data []byte, indent string) ([]byte, error) {
	if !validCompact(data) {
		var out bytes.Buffer
		err := json.Indent(&out, data, "", indent)
		return out.Bytes(), err
	}
	return Compacted(data).Indent(indent), nil
}

// Indent is Indent of JSON known to be valid and compact. It copies strings and numbers as
// runs where encoding/json steps its scanner through every byte, which was most of the cost
// of printing a large List as JSON.
func (c Compacted) Indent(indent string) []byte {
	src := []byte(c)
	// A List at four spaces an indent grows about 3.5 times.
	out := make([]byte, 0, 4*len(src)+1)
	depth := 0
	newline := func() {
		out = append(out, '\n')
		for range depth {
			out = append(out, indent...)
		}
	}
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case '"':
			end := SkipString(src, i)
			out = append(out, src[i:end]...)
			i = end
			continue
		case '{', '[':
			out = append(out, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out = append(out, src[i+1])
				i += 2
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out = append(out, c)
		case ',':
			out = append(out, c)
			newline()
		case ':':
			out = append(out, ':', ' ')
		default: // a number, true, false or null
			end := SkipValue(src, i)
			out = append(out, src[i:end]...)
			i = end
			continue
		}
		i++
	}
	return out
}
