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

// Package jsonpath implements the JSONPath subset that KubeStellar's CustomTransform accepts,
// extended with wildcards and array indexes.
//
// A path is "$" followed by one or more segments:
//
//	.name      member-name-shorthand, exactly as RFC 9535 section 2.5.1.1 defines it
//	["name"]   a double-quoted string literal with RFC 9535's escapes and no others
//	[*]        every member of an object or element of an array (Stencil extension)
//	[N]        array element N; negative N counts from the end (Stencil extension)
//
// No whitespace is allowed anywhere, as in KubeStellar. Unlike KubeStellar, which decodes
// strings with a JavaScript parser, only RFC 9535 escapes are accepted, so `["\x41"]` is an
// error rather than a second spelling of `.A`. "$" alone is rejected: a removal must never
// name the whole object.
package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SegmentKind says what a Segment selects.
type SegmentKind uint8

const (
	// Member selects the object member named Segment.Name.
	Member SegmentKind = iota
	// Index selects the array element at Segment.Index (negative counts from the end).
	Index
	// Wildcard selects every member of an object or every element of an array.
	Wildcard
)

// Segment is one step of a Path.
type Segment struct {
	Kind SegmentKind
	// Name is the member name of a Member segment, unescaped.
	Name string
	// Index is the array index of an Index segment. It is an int64 because RFC 9535 allows
	// the I-JSON range, ±(2^53-1), on every platform.
	Index int64
}

// Path is a parsed JSONPath. Paths returned by Parse have at least one segment.
type Path []Segment

// maxIndex is the largest magnitude RFC 9535 allows for an index (I-JSON's exact integers).
const maxIndex = 1<<53 - 1

// SyntaxError is a parse error; Offset is the byte offset in the input where it was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error says where the path is wrong, so a user can find the spot in a long path.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSONPath at byte %d: %s", e.Offset, e.Msg)
}

// Parse parses a path of the subset described in the package documentation.
func Parse(s string) (Path, error) {
	p := parser{src: s}
	return p.parse()
}

// MustParse is Parse for paths known at compile time; it panics on error.
func MustParse(s string) Path {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

type parser struct {
	src string
	pos int
}

func (p *parser) fail(offset int, format string, args ...any) error {
	return &SyntaxError{Offset: offset, Msg: fmt.Sprintf(format, args...)}
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
			seg Segment
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
func (p *parser) dotSegment() (Segment, error) {
	p.pos++ // "."
	if p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '.':
			return Segment{}, p.fail(p.pos-1, `descendant segments ("..") are not supported`)
		case '*':
			return Segment{}, p.fail(p.pos, `".*" is not supported; use "[*]"`)
		}
	}
	start := p.pos
	for p.pos < len(p.src) {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		if r == utf8.RuneError && size == 1 {
			return Segment{}, p.fail(p.pos, "invalid UTF-8")
		}
		if !isNameFirst(r) && (p.pos == start || !isDigit(r)) {
			break
		}
		p.pos += size
	}
	if p.pos == start {
		return Segment{}, p.unexpected(`a member name after "." (a letter, "_" or non-ASCII character)`)
	}
	return Segment{Kind: Member, Name: p.src[start:p.pos]}, nil
}

// bracketSegment parses `["string"]`, `[*]` or `[N]`.
func (p *parser) bracketSegment() (Segment, error) {
	p.pos++ // "["
	if p.pos >= len(p.src) {
		return Segment{}, p.unexpected(`a string, "*" or an index after "["`)
	}
	var seg Segment
	switch c := p.src[p.pos]; {
	case c == '"':
		name, err := p.stringLiteral()
		if err != nil {
			return Segment{}, err
		}
		seg = Segment{Kind: Member, Name: name}
	case c == '*':
		p.pos++
		seg = Segment{Kind: Wildcard}
	case c == '-' || isDigit(rune(c)):
		n, err := p.index()
		if err != nil {
			return Segment{}, err
		}
		seg = Segment{Kind: Index, Index: n}
	case c == ']':
		return Segment{}, p.fail(p.pos, `empty brackets; expected a string, "*" or an index`)
	case c == '?':
		return Segment{}, p.fail(p.pos, "filter expressions are not supported")
	default:
		return Segment{}, p.unexpected(`a double-quoted string, "*" or an index after "["`)
	}
	if p.pos < len(p.src) && p.src[p.pos] == ',' {
		return Segment{}, p.fail(p.pos, "unions of several selectors are not supported; write one segment per selector")
	}
	if p.pos < len(p.src) && p.src[p.pos] == ':' {
		return Segment{}, p.fail(p.pos, "array slices are not supported")
	}
	if p.pos >= len(p.src) || p.src[p.pos] != ']' {
		return Segment{}, p.unexpected(`"]"`)
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

// stringLiteral parses an RFC 9535 double-quoted string literal and returns it unescaped.
func (p *parser) stringLiteral() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", p.fail(p.pos, "unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case c < 0x20:
			return "", p.fail(p.pos, "control character %U must be escaped", rune(c))
		default:
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.fail(p.pos, "invalid UTF-8")
			}
			b.WriteString(p.src[p.pos : p.pos+size])
			p.pos += size
		}
	}
}

// escape parses one escape sequence at p.pos (the backslash): RFC 9535's escapable set for
// double-quoted strings, which is JSON's.
func (p *parser) escape() (rune, error) {
	start := p.pos
	p.pos++
	if p.pos >= len(p.src) {
		return 0, p.fail(p.pos, "unterminated string")
	}
	c := p.src[p.pos]
	p.pos++
	switch c {
	case '"':
		return '"', nil
	case '\\':
		return '\\', nil
	case '/':
		return '/', nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4(start)
		if err != nil {
			return 0, err
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return 0, p.fail(start, `lone low surrogate \u%04X`, r)
		case r >= 0xD800 && r <= 0xDBFF:
			// A high surrogate must be followed by an escaped low surrogate.
			second := p.pos
			if !strings.HasPrefix(p.src[p.pos:], `\u`) {
				return 0, p.fail(start, `high surrogate \u%04X must be followed by a \u low surrogate`, r)
			}
			p.pos += 2
			lo, err := p.hex4(second)
			if err != nil {
				return 0, err
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				return 0, p.fail(second, `\u%04X is not a low surrogate`, lo)
			}
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), nil
		}
		return r, nil
	}
	p.pos--
	if c == '\'' {
		return 0, p.fail(start, `\' is not an escape in a double-quoted string; write ' as is`)
	}
	return 0, p.fail(start, `invalid escape; allowed are \" \\ \/ \b \f \n \r \t and \uXXXX`)
}

// hex4 reads the four hex digits of a \u escape that started at offset start.
func (p *parser) hex4(start int) (rune, error) {
	if len(p.src)-p.pos < 4 {
		return 0, p.fail(start, `\u needs four hex digits`)
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := p.src[p.pos+i]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, p.fail(start, `\u needs four hex digits`)
		}
		r = r<<4 | rune(v)
	}
	p.pos += 4
	return r, nil
}

// isNameFirst is RFC 9535's name-first: ALPHA / "_" / %x80-D7FF / %xE000-10FFFF. Surrogates
// never reach here: the UTF-8 decoder rejects them.
func isNameFirst(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r >= 0x80
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// String renders the path in canonical form: shorthand where the name allows it, otherwise a
// double-quoted string with the minimal RFC 9535 escapes. Parse(p.String()) equals p.
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range p {
		switch s.Kind {
		case Member:
			if isShorthand(s.Name) {
				b.WriteByte('.')
				b.WriteString(s.Name)
			} else {
				b.WriteByte('[')
				writeQuoted(&b, s.Name)
				b.WriteByte(']')
			}
		case Index:
			b.WriteByte('[')
			b.WriteString(strconv.FormatInt(s.Index, 10))
			b.WriteByte(']')
		case Wildcard:
			b.WriteString("[*]")
		}
	}
	return b.String()
}

func isShorthand(name string) bool {
	if name == "" || !utf8.ValidString(name) {
		return false
	}
	for i, r := range name {
		if !isNameFirst(r) && (i == 0 || !isDigit(r)) {
			return false
		}
	}
	return true
}

func writeQuoted(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xF])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
