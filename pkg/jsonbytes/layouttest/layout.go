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

// Package layouttest writes a JSON document again with other whitespace between its tokens,
// for the tests and fuzzers whose oracle is that layout changes nothing: the same document
// pretty-printed (as oc get -o json writes it), with tabs, CRLF or no space at all must give
// the same result. It is test support and imports nothing.
package layouttest

import "hash/fnv"

// Separators are the uniform layouts every oracle tries: one of them between every two
// tokens, before the first and after the last.
var Separators = []string{"", " ", "\t", "\n", "\r\n", "\r", " \t\r\n", "\n    "}

// Uniform returns data with sep between every two of its tokens, before the first and after
// the last; Uniform(data, "") is data compacted. data must be JSON text: for other bytes the
// tokens are a guess (Uniform never panics, but may join what was apart).
func Uniform(data []byte, sep string) []byte {
	toks := tokens(data)
	out := make([]byte, 0, len(data)+len(sep)*(len(toks)+1))
	out = append(out, sep...)
	for _, tok := range toks {
		out = append(out, tok...)
		out = append(out, sep...)
	}
	return out
}

// Mixed returns data with a gap drawn from seed between every two of its tokens, before the
// first and after the last: none, or one to four of space, tab, CR and LF in any order.
func Mixed(data []byte, seed uint64) []byte {
	const spaces = " \t\r\n"
	state := seed | 1
	draw := func() uint64 { // xorshift64: reproducible from the seed, no shared state
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return state
	}
	gap := func(out []byte) []byte {
		r := draw()
		for n := r % 5; n > 0; n-- {
			r /= 5
			out = append(out, spaces[r%4])
		}
		return out
	}
	toks := tokens(data)
	out := gap(make([]byte, 0, 2*len(data)+8))
	for _, tok := range toks {
		out = append(out, tok...)
		out = gap(out)
	}
	return out
}

// Layouts returns data in every uniform layout of Separators and in the mixed layout of a
// seed taken from data itself, so that a failure reproduces from the input alone.
func Layouts(data []byte) [][]byte {
	out := make([][]byte, 0, len(Separators)+1)
	for _, sep := range Separators {
		out = append(out, Uniform(data, sep))
	}
	return append(out, Mixed(data, Seed(data)))
}

// Seed is a seed for Mixed drawn from data.
func Seed(data []byte) uint64 {
	h := fnv.New64a()
	h.Write(data)
	return h.Sum64()
}

// tokens splits JSON text into its tokens, dropping the whitespace between them: the
// structural characters, strings (escapes included) and the literals and numbers.
func tokens(data []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case isSpace(c):
			i++
		case isStructural(c):
			out = append(out, data[i:i+1])
			i++
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(data))
			out = append(out, data[i:j])
			i = j
		default:
			j := i
			for j < len(data) && !isSpace(data[j]) && !isStructural(data[j]) && data[j] != '"' {
				j++
			}
			out = append(out, data[i:j])
			i = j
		}
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isStructural(c byte) bool {
	switch c {
	case '{', '}', '[', ']', ':', ',':
		return true
	}
	return false
}
