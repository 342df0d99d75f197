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
	"encoding/binary"
	"fmt"
	"math/bits"
)

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
	for i < len(src) {
		switch src[i] {
		case '\n':
			// A line's indentation (half the bytes of the corpus's JSON files): eight bytes
			// are compared with spaces at a time. The single spaces after colons are read a
			// byte at a time, cheaper than a word there.
			i++
			for i+8 <= len(src) {
				if x := binary.LittleEndian.Uint64(src[i:i+8]) ^ spaces8; x != 0 {
					i += bits.TrailingZeros64(x) / 8 // the spaces before the first other byte
					break
				}
				i += 8
			}
		case ' ', '\r', '\t':
			i++
		default:
			return i
		}
	}
	return i
}

const (
	// spaces8 is eight spaces, ones and highs the lowest and the highest bit of each byte of
	// a word.
	spaces8     = 0x2020202020202020
	ones, highs = 0x0101010101010101, 0x8080808080808080
)

// plainWord reports that none of the eight bytes of x needs a look in a string scan
// (stringSpecial): each is from 0x20 to 0x7e and none is a quote, a backslash or a dollar.
// (x|(x+ones)|(x-ones*0x20))&highs is zero exactly when each byte is from 0x20 to 0x7e (a
// carry or a borrow crosses into the next byte only from a byte already caught);
// (y-ones)&^y&highs is zero exactly when no byte of y is zero, y being x with the byte
// looked for made zero.
func plainWord(x uint64) bool {
	quote, backslash, dollar := x^ones*'"', x^ones*'\\', x^ones*'$'
	return (x|(x+ones)|(x-ones*0x20))&highs|(quote-ones)&^quote&highs|
		(backslash-ones)&^backslash&highs|(dollar-ones)&^dollar&highs == 0
}

// textWord is plainWord for the lean reader, which passes dollars: none of the eight bytes of
// x needs a look (leanStop).
func textWord(x uint64) bool {
	quote, backslash := x^ones*'"', x^ones*'\\'
	return (x|(x+ones)|(x-ones*0x20))&highs|(quote-ones)&^quote&highs|(backslash-ones)&^backslash&highs == 0
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
