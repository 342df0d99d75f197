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

package remove

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// segmentKind says what a segment selects.
type segmentKind uint8

const (
	// memberSegment selects the object member named segment.Name.
	memberSegment segmentKind = iota
	// indexSegment selects the array element at segment.Index (negative counts from the end).
	indexSegment
	// wildcardSegment selects every member of an object or every element of an array.
	wildcardSegment
)

// segment is one step of a Path.
type segment struct {
	Kind segmentKind
	// Name is the member name of a memberSegment, unescaped.
	Name string
	// Index is the array index of an indexSegment. It is an int64 because RFC 9535 allows
	// the I-JSON range, ±(2^53-1), on every platform.
	Index int64
}

// Path is a parsed JSONPath. Paths returned by parsePath have at least one segment.
type Path []segment

// maxIndex is the largest magnitude RFC 9535 allows for an index (I-JSON's exact integers).
const maxIndex = 1<<53 - 1

// syntaxError is a parse error; Offset is the byte offset in the input where it was found.
type syntaxError struct {
	Offset int
	Msg    string
}

// Error says where the path is wrong, so a user can find the spot in a long path.
func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSONPath at byte %d: %s", e.Offset, e.Msg)
}

// parsePath parses a path of the subset described in the package documentation.
func parsePath(s string) (Path, error) {
	p := parser{src: s}
	return p.parse()
}

type parser struct {
	src string
	pos int
}

func (p *parser) fail(offset int, format string, args ...any) error {
	return &syntaxError{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse() (Path, error) {
	if p.src == "" {
		return nil, p.fail(0, `empty path; a path starts with "$"`)
	}
	if p.src[0] != '$' {
		return nil, p.fail(0, `a path starts with "$"`)
	}
	p.pos = 1
	if len(p.src) == 1 {
		return nil, p.fail(1, `"$" alone identifies the whole object; add a segment such as ".metadata"`)
	}
	var path Path
	for p.pos < len(p.src) {
		var (
			seg segment
			err error
		)
		switch c := p.src[p.pos]; c {
		case '.':
			seg, err = p.dotSegment()
		case '[':
			seg, err = p.bracketSegment()
		default:
			err = p.unexpected(`"." or "["`)
		}
		if err != nil {
			return nil, err
		}
		path = append(path, seg)
	}
	return path, nil
}

// unexpected reports the byte at the current position, naming the most likely mistakes.
func (p *parser) unexpected(want string) error {
	if p.pos >= len(p.src) {
		return p.fail(p.pos, "unexpected end of path; expected %s", want)
	}
	c := p.src[p.pos]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		return p.fail(p.pos, "whitespace is not allowed")
	case c == '\'':
		return p.fail(p.pos, "single-quoted strings are not supported; use double quotes")
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	if r == utf8.RuneError && size == 1 {
		return p.fail(p.pos, "invalid UTF-8")
	}
	return p.fail(p.pos, "unexpected %q; expected %s", r, want)
}

// dotSegment parses ".name" (RFC 9535 member-name-shorthand).
func (p *parser) dotSegment() (segment, error) {
	p.pos++ // "."
	if p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '.':
			return segment{}, p.fail(p.pos-1, `descendant segments ("..") are not supported`)
		case '*':
			return segment{}, p.fail(p.pos, `".*" is not supported; use "[*]"`)
		}
	}
	start := p.pos
	for p.pos < len(p.src) {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		if r == utf8.RuneError && size == 1 {
			return segment{}, p.fail(p.pos, "invalid UTF-8")
		}
		if !isNameFirst(r) && (p.pos == start || !isDigit(r)) {
			break
		}
		p.pos += size
	}
	if p.pos == start {
		return segment{}, p.unexpected(`a member name after "." (a letter, "_" or non-ASCII character)`)
	}
	return segment{Kind: memberSegment, Name: p.src[start:p.pos]}, nil
}

// bracketSegment parses `["string"]`, `[*]` or `[N]`.
func (p *parser) bracketSegment() (segment, error) {
	p.pos++ // "["
	if p.pos >= len(p.src) {
		return segment{}, p.unexpected(`a string, "*" or an index after "["`)
	}
	var seg segment
	switch c := p.src[p.pos]; {
	case c == '"':
		name, err := p.stringLiteral()
		if err != nil {
			return segment{}, err
		}
		seg = segment{Kind: memberSegment, Name: name}
	case c == '*':
		p.pos++
		seg = segment{Kind: wildcardSegment}
	case c == '-' || isDigit(rune(c)):
		n, err := p.index()
		if err != nil {
			return segment{}, err
		}
		seg = segment{Kind: indexSegment, Index: n}
	case c == ']':
		return segment{}, p.fail(p.pos, `empty brackets; expected a string, "*" or an index`)
	case c == '?':
		return segment{}, p.fail(p.pos, "filter expressions are not supported")
	default:
		return segment{}, p.unexpected(`a double-quoted string, "*" or an index after "["`)
	}
	if p.pos < len(p.src) && p.src[p.pos] == ',' {
		return segment{}, p.fail(p.pos, "unions of several selectors are not supported; write one segment per selector")
	}
	if p.pos < len(p.src) && p.src[p.pos] == ':' {
		return segment{}, p.fail(p.pos, "array slices are not supported")
	}
	if p.pos >= len(p.src) || p.src[p.pos] != ']' {
		return segment{}, p.unexpected(`"]"`)
	}
	p.pos++
	return seg, nil
}

// index parses RFC 9535's int: "0" / ["-"] DIGIT1 *DIGIT, within ±(2^53-1).
func (p *parser) index() (int64, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	digits := p.pos
	for p.pos < len(p.src) && isDigit(rune(p.src[p.pos])) {
		p.pos++
	}
	text := p.src[start:p.pos]
	switch {
	case p.pos == digits:
		return 0, p.unexpected("a digit")
	case p.src[digits] == '0' && (p.pos-digits > 1 || digits > start):
		// RFC 9535 gives every index one spelling: no leading zeros, no "-0".
		return 0, p.fail(start, "index %s has a leading zero or is -0", text)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n > maxIndex || n < -maxIndex {
		return 0, p.fail(start, "index %s is out of range (at most 2^53-1 in magnitude)", text)
	}
	return n, nil
}
