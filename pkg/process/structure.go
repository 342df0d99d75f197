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
	"unicode/utf8"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// structure indexes one compacted object, so that the walker can skip any value that holds
// no "$" in constant time instead of reading it again at every depth.
type structure struct {
	// ends[i] is the offset after the object or array that opens at i; other entries are junk.
	ends []int32
	// dollars are the offsets of every "$" (and of every \u0024 escape), in order;
	// nextDollar is the first one at or after the last offset hasDollar was asked about.
	dollars    []int32
	nextDollar int
	// frames and names are the open containers and the member names of the open objects,
	// kept between calls to save allocations.
	frames []openContainer
	names  [][]byte
	// numbersFit is false when a number is one Kubernetes cannot read (see
	// templates.NumberFits); the pass checks them as it goes.
	numbersFit bool
}

// openContainer is an open object or array while compacting.
type openContainer struct {
	at     int32 // offset of the "{" or "[" in the output
	names  int32 // where this object's names start in structure.names
	object bool
	// set holds the names of an object with many members, where comparing each new name
	// with every earlier one would be quadratic.
	set map[string]struct{}
}

// namesBeforeSet is how many members an object has before its names go into a set.
const namesBeforeSet = 32

// maxNesting bounds the depth of objects and arrays, as jsontext does.
const maxNesting = 10000

// compact validates the JSON value src as strictly as the Kubernetes API reads objects (no
// duplicate member names, valid UTF-8, one value), appends it without insignificant
// whitespace to dst and indexes the result: one pass does what validating, compacting and
// indexing would do in three.
func (s *structure) compact(dst, src []byte) ([]byte, error) {
	if cap(s.ends) < len(src) {
		s.ends = make([]int32, len(src)+len(src)/2)
	}
	s.ends = s.ends[:cap(s.ends)]
	s.dollars, s.nextDollar, s.frames, s.names = s.dollars[:0], 0, s.frames[:0], s.names[:0]
	s.numbersFit = true
	dst = dst[:0]
	i := skipSpace(src, 0)
	// expectValue: a value comes next; else a comma or the container's end does.
	expectValue := true
	for {
		if !expectValue && len(s.frames) == 0 {
			if i = skipSpace(src, i); i != len(src) {
				return dst, syntaxError(src, i, "the end of input")
			}
			return dst, nil
		}
		if i >= len(src) {
			return dst, fmt.Errorf("unexpected end of input")
		}
		c := src[i]
		if expectValue {
			top := len(s.frames) - 1
			if top >= 0 && s.frames[top].object {
				// A member: its name, a colon, then its value.
				if c != '"' {
					return dst, syntaxError(src, i, "a member name")
				}
				at := len(dst)
				var err error
				if dst, i, err = s.str(dst, src, i); err != nil {
					return dst, err
				}
				if err := s.addName(dst[at:], top); err != nil {
					return dst, err
				}
				i = skipSpace(src, i)
				if i >= len(src) || src[i] != ':' {
					return dst, syntaxError(src, i, "a colon")
				}
				dst = append(dst, ':')
				i = skipSpace(src, i+1)
				if i >= len(src) {
					return dst, fmt.Errorf("unexpected end of input")
				}
				c = src[i]
			}
			switch {
			case c == '{' || c == '[':
				if len(s.frames) >= maxNesting {
					return dst, fmt.Errorf("nested deeper than %d levels", maxNesting)
				}
				s.frames = append(s.frames, openContainer{at: int32(len(dst)), names: int32(len(s.names)), object: c == '{'})
				dst = append(dst, c)
				i = skipSpace(src, i+1)
				closer := byte(']')
				if c == '{' {
					closer = '}'
				}
				if i < len(src) && src[i] == closer {
					dst, i = s.close(dst, closer), i+1
					expectValue = false
				}
				continue
			case c == '"':
				var err error
				if dst, i, err = s.str(dst, src, i); err != nil {
					return dst, err
				}
			default:
				end := scalarEnd(src, i)
				if !validScalar(src[i:end]) {
					return dst, syntaxError(src, i, "a value")
				}
				if c == '-' || c >= '0' && c <= '9' {
					s.numbersFit = s.numbersFit && templates.NumberFits(src[i:end])
				}
				dst, i = append(dst, src[i:end]...), end
			}
			expectValue = false
		} else {
			top := s.frames[len(s.frames)-1]
			closer := byte(']')
			if top.object {
				closer = '}'
			}
			switch c {
			case ',':
				dst = append(dst, ',')
				i, expectValue = skipSpace(src, i+1), true
				continue
			case closer:
				dst, i = s.close(dst, closer), i+1
			default:
				return dst, syntaxError(src, i, fmt.Sprintf("a comma or %q", closer))
			}
		}
		i = skipSpace(src, i)
	}
}

// close ends the innermost container and records where it ends.
func (s *structure) close(dst []byte, closer byte) []byte {
	top := s.frames[len(s.frames)-1]
	s.frames = s.frames[:len(s.frames)-1]
	s.names = s.names[:top.names]
	dst = append(dst, closer)
	s.ends[top.at] = int32(len(dst))
	return dst
}

// addName records a member name of the innermost object, refusing a repeated one. Names
// are compared by their content, so "a" and "\u0061" are the same name.
func (s *structure) addName(quoted []byte, top int) error {
	name := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		name = jsonbytes.StringContent(quoted)
	}
	f := &s.frames[top]
	if f.set != nil {
		if _, dup := f.set[string(name)]; dup {
			return fmt.Errorf("duplicate member name %q", name)
		}
		f.set[string(name)] = struct{}{}
		return nil
	}
	earlier := s.names[f.names:]
	for _, seen := range earlier {
		if bytes.Equal(seen, name) {
			return fmt.Errorf("duplicate member name %q", name)
		}
	}
	if len(earlier) < namesBeforeSet {
		s.names = append(s.names, name)
		return nil
	}
	f.set = make(map[string]struct{}, 2*namesBeforeSet)
	for _, seen := range earlier {
		f.set[string(seen)] = struct{}{}
	}
	f.set[string(name)] = struct{}{}
	s.names = s.names[:f.names]
	return nil
}

// stringSpecial marks the bytes a string scan must stop at: its end, escapes, dollars,
// control characters and the start of multi-byte UTF-8.
var stringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'], t['$'] = true, true, true
	return t
}()

// str copies the string at src[i] into dst after checking it, and notes its dollars.
func (s *structure) str(dst, src []byte, i int) ([]byte, int, error) {
	// The string is copied whole, so src[j] lands at dst[base+j].
	base := len(dst) - i
	for j := i + 1; ; {
		for j < len(src) && !stringSpecial[src[j]] {
			j++
		}
		if j >= len(src) {
			return dst, len(src), fmt.Errorf("unterminated string")
		}
		switch c := src[j]; {
		case c == '"':
			return append(dst, src[i:j+1]...), j + 1, nil
		case c == '$':
			s.dollars = append(s.dollars, int32(base+j))
			j++
		case c == '\\':
			n, err := escapeLength(src, j)
			if err != nil {
				return dst, j, err
			}
			if n == 6 && src[j+2] == '0' && src[j+3] == '0' && src[j+4] == '2' && src[j+5] == '4' {
				s.dollars = append(s.dollars, int32(base+j))
			}
			j += n
		case c < 0x20:
			return dst, j, fmt.Errorf("offset %d: control character %#x in a string", j, c)
		default:
			r, size := utf8.DecodeRune(src[j:])
			if r == utf8.RuneError && size == 1 {
				return dst, j, fmt.Errorf("offset %d: invalid UTF-8 in a string", j)
			}
			j += size
		}
	}
}

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
	// Compacted input has no space: one comparison tells most bytes apart.
	for i < len(src) && src[i] <= ' ' && (src[i] == ' ' || src[i] == '\n' || src[i] == '\r' || src[i] == '\t') {
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
