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

import "fmt"

// The lexical checks of the one-pass compaction (structure.go): escapes, scalars, space.

// escapeLength checks the escape sequence at src[j] and returns its length. A \u escape of
// half a surrogate pair must be followed by the other half, as valid UTF-16 requires.
func escapeLength(src []byte, j int) (int, error) {
	if j+1 >= len(src) {
		return 0, fmt.Errorf("unterminated string")
	}
	switch src[j+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		r, ok := hex4(src, j+2)
		if !ok {
			return 0, fmt.Errorf("offset %d: invalid \\u escape", j)
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if j+7 < len(src) && src[j+6] == '\\' && src[j+7] == 'u' {
				if low, ok := hex4(src, j+8); ok && low >= 0xDC00 && low < 0xE000 {
					return 12, nil
				}
			}
			return 0, fmt.Errorf("offset %d: invalid surrogate pair in a \\u escape", j)
		case r >= 0xDC00 && r < 0xE000:
			return 0, fmt.Errorf("offset %d: invalid surrogate pair in a \\u escape", j)
		}
		return 6, nil
	}
	return 0, fmt.Errorf("offset %d: invalid escape \\%c", j, src[j+1])
}

func hex4(src []byte, at int) (rune, bool) {
	if at+4 > len(src) {
		return 0, false
	}
	var r rune
	for _, c := range src[at : at+4] {
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

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\n' || src[i] == '\r' || src[i] == '\t') {
		i++
	}
	return i
}

// scalarEnd returns the end of the number or literal at src[i].
func scalarEnd(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\n', '\r', '\t', ',', ']', '}', ':', '"', '{', '[':
			return i
		}
		i++
	}
	return i
}

// validScalar reports whether b is true, false, null or a JSON number.
func validScalar(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(b)
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func syntaxError(src []byte, i int, want string) error {
	if i >= len(src) {
		return fmt.Errorf("unexpected end of input, want %s", want)
	}
	return fmt.Errorf("offset %d: invalid character %q, want %s", i, src[i], want)
}
