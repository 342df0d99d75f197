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
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The helpers below walk JSON that Compact has already validated and compacted, so they need no
// error handling: every object, array and string is well formed and has no whitespace.

// strictJSON rejects what a Kubernetes object must not hold.
var strictJSON = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}

// Compact validates raw and returns it without insignificant whitespace, in a new buffer.
// Duplicate names and invalid UTF-8 are errors.
func Compact(raw []byte) ([]byte, error) { return CompactInto(nil, raw) }

// CompactInto is Compact writing into dst's space, so that a caller can reuse one buffer.
func CompactInto(dst, raw []byte) ([]byte, error) {
	v := jsontext.Value(append(dst[:0], raw...))
	if err := v.Compact(strictJSON...); err != nil {
		return v, err
	}
	return v, nil
}

// Compacted is JSON known to be valid, as Compact requires, and compact: what Compact returns,
// and what the engine and EncodeObjects write. Its writers (YAML, Indent) walk it without
// checking it again, which would cost them as much as writing it; converting bytes to
// Compacted is that claim. ToYAML and Indent check bytes of unknown origin first.
type Compacted []byte

// compacted returns raw itself when it is valid, as Compact requires, and already compact,
// and otherwise what Compact returns.
func compacted(raw []byte) (Compacted, error) {
	if validCompact(raw) {
		return raw, nil
	}
	return Compact(raw)
}

// validCompact reports whether raw is valid, as Compact requires, and already compact.
func validCompact(raw []byte) bool {
	return jsontext.Value(raw).IsValid(strictJSON...) && isCompact(raw)
}

// isCompact reports whether valid JSON has no whitespace outside its strings.
func isCompact(b []byte) bool {
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			i = SkipString(b, i)
			continue
		case ' ', '\t', '\n', '\r':
			return false
		}
		i++
	}
	return true
}

// SkipString returns the offset after the string starting at b[i].
func SkipString(b []byte, i int) int {
	for j := i + 1; ; {
		q := j + bytes.IndexByte(b[j:], '"')
		escapes := 0
		for k := q - 1; b[k] == '\\'; k-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// SkipValue returns the offset after the value starting at b[i].
func SkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = SkipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
	default:
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
			i++
		}
		return i
	}
}

// MayContainDollar is a fast pre-check on raw JSON for a "$", written as is or escaped as
// \u0024: without one, no string in raw can hold a parameter reference.
func MayContainDollar(raw []byte) bool {
	return bytes.IndexByte(raw, '$') >= 0 || bytes.Contains(raw, []byte(`\u0024`))
}

// StringContent returns the decoded content of the quoted JSON string raw. It does not copy
// when raw holds no escape.
func StringContent(raw []byte) []byte {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	return AppendStringContent(make([]byte, 0, len(inner)), raw)
}

// AppendStringContent appends the decoded content of the quoted JSON string raw to dst, as
// StringContent returns it: a reader that keeps the strings it reads in memory of its own
// decodes them there, with no buffer of their own. The content is at most len(raw)-2 bytes.
func AppendStringContent(dst, raw []byte) []byte {
	inner := raw[1 : len(raw)-1]
	k := bytes.IndexByte(inner, '\\')
	if k < 0 {
		return append(dst, inner...)
	}
	// The escapes of a block of text (a script's \n, a quote's \", the \u0026 of its && as
	// YAMLToJSON writes it) are undone here, the text between them copied a run at a time:
	// several times faster on long strings than the general unquote, which is left the
	// surrogates, what is not valid UTF-8 and what is not valid JSON (from dst again: what
	// this loop appended is past dst's length, written over).
	if utf8.Valid(inner) {
		out := dst
		for {
			out = append(out, inner[:k]...)
			if k+1 >= len(inner) {
				break
			}
			c := inner[k+1]
			if c == 'u' {
				r, ok := hex4(inner[k+2:])
				if !ok || r >= 0xD800 && r < 0xE000 {
					break
				}
				out = utf8.AppendRune(out, r)
				inner = inner[k+6:]
				if k = bytes.IndexByte(inner, '\\'); k < 0 {
					return append(out, inner...)
				}
				continue
			}
			switch c {
			case '"', '\\', '/':
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			default:
				k = -1
			}
			if k < 0 {
				break
			}
			out = append(out, c)
			inner = inner[k+2:]
			if k = bytes.IndexByte(inner, '\\'); k < 0 {
				return append(out, inner...)
			}
		}
	}
	out, err := jsontext.AppendUnquote(dst, raw)
	if err != nil {
		return append(dst, raw[1:len(raw)-1]...) // unreachable on validated input
	}
	return out
}

// hex4 reads the four hexadecimal digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
