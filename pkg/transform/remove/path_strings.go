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
	"strconv"
	"strings"
	"unicode/utf8"
)

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
// double-quoted string with the minimal RFC 9535 escapes. parsePath(p.String()) equals p.
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range p {
		switch s.Kind {
		case memberSegment:
			if isShorthand(s.Name) {
				b.WriteByte('.')
				b.WriteString(s.Name)
			} else {
				b.WriteByte('[')
				writeQuoted(&b, s.Name)
				b.WriteByte(']')
			}
		case indexSegment:
			b.WriteByte('[')
			b.WriteString(strconv.FormatInt(s.Index, 10))
			b.WriteByte(']')
		case wildcardSegment:
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
