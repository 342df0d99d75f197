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
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// How much JSON a YAML document may stand for. go.yaml.in/yaml/v2 (and so sigs.k8s.io/yaml)
// bounds aliases by the number of nodes they repeat, not by bytes: one scalar of a megabyte,
// anchored once and aliased 500 times in a 1 MB body, is 500 MB of JSON, and more again in
// the trees decoded from it. Every reader of this package refuses a document whose JSON
// would pass MaxJSONBytes of its source, before writing it.
//
// A document without aliases never comes near the bound: a byte of YAML becomes at most six
// of JSON (a `<` in a string is written \u003c, as encoding/json writes it), and the smallest
// documents at most a few bytes more (`-` is [null]).
const (
	// ExpansionFactor is how many times its own size a document's JSON may be.
	ExpansionFactor = 8
	// expansionSlack is what any document may have beyond ExpansionFactor times its size.
	expansionSlack = 1 << 10
)

// MaxJSONBytes is the most JSON a YAML document of n bytes is read into: ExpansionFactor
// times n, and 1 KiB more.
func MaxJSONBytes(n int) int { return ExpansionFactor*n + expansionSlack }

// ExpansionError refuses a YAML document whose aliases would expand it past MaxJSONBytes of
// its size.
type ExpansionError struct {
	// Source is the size of the YAML read, Limit the most JSON it may stand for.
	Source, Limit int
}

func (e *ExpansionError) Error() string {
	return fmt.Sprintf("the YAML's aliases expand its %d bytes to more than %d bytes (%d times its size): write out what is repeated instead",
		e.Source, e.Limit, ExpansionFactor)
}

// checkFallbackExpansion refuses, before sigs.k8s.io/yaml writes it, a document the fast
// reader left whose JSON would pass MaxJSONBytes: it decodes the document as YAMLToJSON does
// (go.yaml.in/yaml/v2, whose nodes share what an alias repeats) and measures what encoding it
// would write, stopping at the bound. A document without a `*` has no alias to measure; one
// v2 cannot decode is left to YAMLToJSON, which reports why.
func checkFallbackExpansion(data []byte) error {
	if bytes.IndexByte(data, '*') < 0 {
		return nil
	}
	var v any
	if err := yamlv2.Unmarshal(data, &v); err != nil {
		return nil
	}
	limit := MaxJSONBytes(len(data))
	if m := (jsonMeasure{limit: limit}); m.value(v, 0) > limit {
		return &ExpansionError{Source: len(data), Limit: limit}
	}
	return nil
}

// jsonMeasure adds up the JSON size of a decoded value, and stops adding past limit.
type jsonMeasure struct {
	limit, size int
}

// value returns the size measured so far with v's added; depth bounds the recursion as
// encoding/json's own does not need to (v2 decodes at most 10,000 levels).
func (m *jsonMeasure) value(v any, depth int) int {
	if m.size > m.limit || depth > 20000 {
		m.size = m.limit + 1
		return m.size
	}
	switch v := v.(type) {
	case nil:
		m.size += 4
	case string:
		m.size += jsonStringSize(v)
	case bool:
		m.size += 5
	case map[any]any:
		m.size += 2
		for k, item := range v {
			m.size += jsonStringSize(fmt.Sprint(k)) + 2
			m.value(item, depth+1)
		}
	case []any:
		m.size += 2
		for _, item := range v {
			m.size++
			m.value(item, depth+1)
		}
	case int:
		m.size += len(strconv.Itoa(v))
	default:
		m.size += len(fmt.Sprint(v)) + 2
	}
	return m.size
}

// jsonStringSize is the size of s written as a JSON string by encoding/json (as
// appendJSONString writes it).
func jsonStringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&':
				n++
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
