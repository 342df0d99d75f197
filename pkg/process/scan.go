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
	"fmt"
)

// scanner finds the extent of JSON values in bytes nobody has validated yet. It never reads
// out of bounds and follows at most maxDepth levels, so any input is safe; it checks only
// what it needs to find where a value ends, and leaves the rest to a validating reader.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

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
	if !s.consume('"') {
		return s.errorf("expected a string")
	}
	for {
		q := bytes.IndexByte(s.b[s.i:], '"')
		if q < 0 {
			s.i = len(s.b)
			return s.errorf("unterminated string")
		}
		end := s.i + q
		backslashes := 0
		for k := end - 1; k >= s.i && s.b[k] == '\\'; k-- {
			backslashes++
		}
		s.i = end + 1
		if backslashes%2 == 0 {
			return nil
		}
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
	return nil
}

// skipContainer moves past the object or array at the scanner. Brackets are matched by
// depth only; the reader of the value checks that they pair up.
func (s *scanner) skipContainer(depth int) error {
	open := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if err := s.skipString(); err != nil {
				return err
			}
			continue
		case '{', '[':
			open++
			if depth+open > maxDepth {
				return s.errorf("nested deeper than %d levels", maxDepth)
			}
		case '}', ']':
			open--
			if open == 0 {
				s.i++
				return nil
			}
		}
		s.i++
	}
	return s.errorf("unexpected end of input")
}
