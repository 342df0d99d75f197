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
	"encoding/binary"
	"fmt"
	"math/bits"
)

// scanner finds the extent of JSON values in bytes nobody has validated yet. It never reads
// out of bounds and follows at most maxDepth levels, so any input is safe; it checks only
// what it needs to find where a value ends, and leaves the rest to a validating reader.
type scanner struct {
	b []byte
	i int
	// unfitNumber says a number the scanner passed may be one Kubernetes cannot read: it has
	// an exponent or more than maxPlainDigits characters (templates.NumberFits). The scanner
	// reads each number as templates.NumberErrors' walk does, so that a value it passed
	// without setting this holds no number that walk refuses.
	unfitNumber bool
}

// maxPlainDigits is the longest number without an exponent templates.NumberFits passes
// without parsing it.
const maxPlainDigits = 308

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) space() {
	if s.i < len(s.b) && s.b[s.i] <= ' ' {
		s.spaceRun()
	}
}

// spaceRun is space past a space, a call of its own (see leanReader.spaceRun).
//
//go:noinline
func (s *scanner) spaceRun() { s.i = skipSpace(s.b, s.i) }

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes word when it comes next, followed by a delimiter.
func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	if end := s.i + len(word); end < len(s.b) && !isDelimiter(s.b[end]) {
		return false
	}
	s.i += len(word)
	return true
}

func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}', ':':
		return true
	}
	return false
}

// skipString moves past the string that starts at the scanner.
func (s *scanner) skipString() error {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return s.errorf("expected a string")
	}
	end, ok := stringEnd(s.b, s.i)
	s.i = end
	if !ok {
		return s.errorf("unterminated string")
	}
	return nil
}

// stringEnd returns the offset after the string that starts at b[i], or len(b) and false when
// it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	j := i + 1
	// Most strings are short (names, small values), shorter than what IndexByte's setup
	// costs: their first sixteen bytes are looked through eight at a time for a quote or a
	// backslash. (y-ones)&^y&highs marks the bytes of y that are zero, and perhaps bytes
	// above a zero one (a borrow), never below: its lowest mark is the first match.
	for words := 0; words < 2 && j+8 <= len(b); words++ {
		x := binary.LittleEndian.Uint64(b[j : j+8])
		quote, backslash := x^ones*'"', x^ones*'\\'
		m := (quote-ones)&^quote&highs | (backslash-ones)&^backslash&highs
		if m == 0 {
			j += 8
			continue
		}
		k := j + bits.TrailingZeros64(m)/8
		if b[k] == '"' {
			return k + 1, true
		}
		// An escape: the next byte is part of it. The rest is read by what follows, whose
		// count of backslashes before a quote reaches back to the opening one.
		j = min(k+2, len(b))
	}
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b), false
		}
		end := j + q
		// The opening quote stops the count of backslashes before this quote.
		k := end - 1
		for b[k] == '\\' {
			k--
		}
		if (end-1-k)%2 == 0 {
			return end + 1, true
		}
		j = end + 1
	}
}

// skipValue moves past the value that starts at the scanner, at nesting depth depth.
func (s *scanner) skipValue(depth int) error {
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of input")
	}
	switch s.b[s.i] {
	case '"':
		return s.skipString()
	case '{', '[':
		return s.skipContainer(depth)
	case '}', ']', ',', ':':
		return s.errorf("unexpected %q", s.b[s.i])
	}
	start := s.i
	for s.i < len(s.b) && !isDelimiter(s.b[s.i]) {
		s.i++
	}
	if s.i == start {
		return s.errorf("expected a value")
	}
	// A value that is neither an object, an array nor a string is left to the walk, which
	// may find a number in it anywhere ("!0e").
	s.unfitNumber = true
	return nil
}

// containerByte marks the bytes skipContainer acts on: one table lookup passes the others.
var containerByte = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// skipContainer moves past the object or array at the scanner. Brackets are matched by
// depth only; the reader of the value checks that they pair up. It works on locals, not on the
// scanner, because it runs over every byte of a template's objects.
func (s *scanner) skipContainer(depth int) error {
	b, i, open := s.b, s.i, 0
	unfit := false
	for i < len(b) {
		if c := b[i]; !containerByte[c] { // spaces, names' colons, commas, numbers and literals
			switch {
			case c == ' ' || c == '\n':
				i = skipSpace(b, i) // a file's indentation, eight bytes a step
			case c-'0' <= 9 || c == '-':
				// A number, read at once as templates.NumberErrors' walk reads it: from a digit
				// or a minus, on over the bytes a number is written with.
				start, exponent := i, false
				for i++; i < len(b) && numberByte[b[i]]; i++ {
					exponent = exponent || b[i]|0x20 == 'e'
				}
				unfit = unfit || exponent || i-start > maxPlainDigits
			default:
				i++
			}
			continue
		}
		switch b[i] {
		case '"':
			end, ok := stringEnd(b, i)
			if !ok {
				s.i, s.unfitNumber = end, s.unfitNumber || unfit
				return s.errorf("unterminated string")
			}
			i = end
			if i+1 < len(b) && b[i] == ':' && b[i+1] == ' ' {
				i += 2 // a name's colon and the space an indented file writes after it
			}
			continue
		case '{', '[':
			open++
			if depth+open > maxDepth {
				s.i, s.unfitNumber = i, s.unfitNumber || unfit
				return s.errorf("nested deeper than %d levels", maxDepth)
			}
		case '}', ']':
			open--
			if open == 0 {
				s.i, s.unfitNumber = i+1, s.unfitNumber || unfit
				return nil
			}
		}
		i++
	}
	s.i, s.unfitNumber = i, s.unfitNumber || unfit
	return s.errorf("unexpected end of input")
}
