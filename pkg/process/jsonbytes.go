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
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The helpers below walk JSON that jsontext has already validated and compacted, so they need
// no error handling: every object, array and string is well formed and has no whitespace.

// strictJSON rejects what a Kubernetes object must not hold.
var strictJSON = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false)}

// compactJSON validates raw and returns it without insignificant whitespace, in a new buffer.
func compactJSON(raw []byte) ([]byte, error) { return compactInto(nil, raw) }

// compactInto is compactJSON writing into dst's space.
func compactInto(dst, raw []byte) ([]byte, error) {
	v := jsontext.Value(append(dst[:0], raw...))
	if err := v.Compact(strictJSON...); err != nil {
		return v, err
	}
	return v, nil
}

// skipString returns the offset after the string starting at b[i].
func skipString(b []byte, i int) int {
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

// skipValue returns the offset after the value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for {
			switch b[i] {
			case '"':
				i = skipString(b, i)
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

// mayHoldReference is a fast pre-check on raw JSON: a reference needs a "$", written as is or
// escaped as \u0024.
func mayHoldReference(raw []byte) bool {
	return bytes.IndexByte(raw, '$') >= 0 || bytes.Contains(raw, []byte(`\u0024`))
}

// stringContent returns the decoded content of the quoted JSON string raw. It does not copy
// when raw holds no escape.
func stringContent(raw []byte) []byte {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	out, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return inner // unreachable on validated input
	}
	return out
}

// hexDigits spell \u00XX escapes.
const hexDigits = "0123456789abcdef"

// appendEscaped appends s as the content of a JSON string (without quotes). Invalid UTF-8
// becomes U+FFFD, so the output is always valid JSON.
func appendEscaped[T ~[]byte | ~string](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

// appendQuoted appends s as a JSON string.
func appendQuoted[T ~[]byte | ~string](dst []byte, s T) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}
