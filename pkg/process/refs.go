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

import "strings"

// syntax finds parameter references in strings according to a dialect.
type syntax struct {
	dialect Dialect
	// params maps declared parameter names to their index.
	params map[string]int
}

// segment is one piece of a scanned string s: literal text, or a reference.
type segment struct {
	// start and end bound the literal text, or the reference as written, in s.
	start, end int
	ref        bool
	// nameStart and nameEnd bound the referenced name in s; param is its index, or -1 when
	// it is not declared.
	nameStart, nameEnd int
	param              int
	// typed marks ${{P}} and $((P)); paren marks $(P) and $((P)).
	typed bool
	paren bool
}

// text returns the segment's text in s.
func (seg *segment) text(s []byte) []byte { return s[seg.start:seg.end] }

// name returns the referenced name in s.
func (seg *segment) name(s []byte) string { return string(s[seg.nameStart:seg.nameEnd]) }

// isBraceNameChar is the name alphabet of ${NAME}, as wide as OpenShift's, so that "${1}" is
// seen as a reference (and reported) rather than silently kept.
func isBraceNameChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isParenNameStart and isParenNameChar spell a parameter name in $(NAME): a C identifier, as
// parameter names are.
func isParenNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isParenNameChar(c byte) bool { return isParenNameStart(c) || c >= '0' && c <= '9' }

// match returns the reference starting at s[i] (which is '$') and its end, or ok=false when
// none starts there. A $(X) naming no parameter is not a reference: it is Kubernetes' own
// variable syntax.
func (sx *syntax) match(s []byte, i int) (seg segment, ok bool) {
	if i+1 >= len(s) {
		return seg, false
	}
	switch s[i+1] {
	case '{':
		if i+2 < len(s) && s[i+2] == '{' {
			if nameEnd, end := enclosedName(s, i+3, "}}", braceNameChars, braceNameChars); end > 0 {
				return sx.reference(s, i, end, i+3, nameEnd, true, false), true
			}
		}
		if nameEnd, end := enclosedName(s, i+2, "}", braceNameChars, braceNameChars); end > 0 {
			return sx.reference(s, i, end, i+2, nameEnd, false, false), true
		}
	case '(':
		if sx.dialect != Stencil {
			return seg, false
		}
		if i+2 < len(s) && s[i+2] == '(' {
			if nameEnd, end := enclosedName(s, i+3, "))", parenNameStarts, parenNameChars); end > 0 {
				return sx.reference(s, i, end, i+3, nameEnd, true, true), true
			}
		}
		if nameEnd, end := enclosedName(s, i+2, ")", parenNameStarts, parenNameChars); end > 0 {
			if seg := sx.reference(s, i, end, i+2, nameEnd, false, true); seg.param >= 0 {
				return seg, true
			}
		}
	}
	return seg, false
}

// braceNameChars, parenNameStarts and parenNameChars are the name checks as tables: a name is
// read a byte at a time, and a lookup costs less than a call through a func value.
var braceNameChars, parenNameStarts, parenNameChars = byteTable(isBraceNameChar), byteTable(isParenNameStart), byteTable(isParenNameChar)

func byteTable(in func(byte) bool) *[256]bool {
	t := new([256]bool)
	for c := range 256 {
		t[c] = in(byte(c))
	}
	return t
}

// enclosedName reads a name at s[at:] followed by closer and returns the name's end and the
// offset after closer, or end 0 when there is no such name.
func enclosedName(s []byte, at int, closer string, first, rest *[256]bool) (nameEnd, end int) {
	j := at
	if j < len(s) && first[s[j]] {
		j++
		for j < len(s) && rest[s[j]] {
			j++
		}
	}
	if j == at || j+len(closer) > len(s) || string(s[j:j+len(closer)]) != closer {
		return 0, 0
	}
	return j, j + len(closer)
}

func (sx *syntax) reference(s []byte, start, end, nameStart, nameEnd int, typed, paren bool) segment {
	param, declared := sx.params[string(s[nameStart:nameEnd])]
	if !declared {
		param = -1
	}
	return segment{start: start, end: end, ref: true, nameStart: nameStart, nameEnd: nameEnd,
		param: param, typed: typed, paren: paren}
}

// split cuts s into literal text and references in one pass, appending to segs, and applies
// the $$ escape of the Stencil dialect: the escaped reference becomes literal text without its
// first "$". changed reports whether an escape was removed.
func (sx *syntax) split(s []byte, segs []segment) (_ []segment, changed bool) {
	litStart := 0
	literal := func(end int) {
		if end > litStart {
			segs = append(segs, segment{start: litStart, end: end, param: -1})
		}
	}
	for i := 0; i < len(s); {
		if s[i] != '$' {
			i++
			continue
		}
		if sx.dialect == Stencil && i+1 < len(s) && s[i+1] == '$' {
			if seg, ok := sx.match(s, i+1); ok {
				literal(i)
				litStart, i, changed = i+1, seg.end, true
				continue
			}
			i++
			continue
		}
		seg, ok := sx.match(s, i)
		if !ok {
			i++
			continue
		}
		literal(i)
		segs = append(segs, seg)
		litStart, i = seg.end, seg.end
	}
	literal(len(s))
	return segs, changed
}

// hasReference reports whether split would find a reference or an escape in s.
func (sx *syntax) hasReference(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			if _, ok := sx.match(s, i); ok {
				return true
			}
		}
	}
	return false
}

// Escaper writes literal text so that the Stencil dialect gives it back as it was: it adds the
// $$ escape before every place where processing a template that declares the given parameters
// would find a reference. stencil export writes the strings of live objects through it, so
// that a script's "${HOME}" survives and Kubernetes' own $(VAR) is left alone.
type Escaper struct {
	sx syntax
}

// NewEscaper returns the Escaper of a template that declares params.
func NewEscaper(params []string) *Escaper {
	declared := make(map[string]int, len(params))
	for i, p := range params {
		declared[p] = i
	}
	return &Escaper{sx: syntax{dialect: Stencil, params: declared}}
}

// Escape returns s with a "$" added before each reference split would find in it.
func (e *Escaper) Escape(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	b := []byte(s)
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '$' {
			continue
		}
		if _, ok := e.sx.match(b, i); ok {
			out = append(append(out, b[last:i]...), '$')
			last = i
		}
	}
	if out == nil {
		return s
	}
	return string(append(out, b[last:]...))
}
