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

// syntax finds parameter references in strings according to a dialect.
type syntax struct {
	dialect Dialect
	// params maps declared parameter names to their index.
	params map[string]int
}

// segment is one piece of a scanned string: literal text, or a reference.
type segment struct {
	// text is the literal text, or the reference as written when the segment is a reference.
	text []byte
	ref  bool
	// name is the referenced parameter; param is its index, or -1 when it is not declared.
	name  string
	param int
	// typed marks ${{P}} and $((P)); paren marks $(P) and $((P)).
	typed bool
	paren bool
}

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
func (sx *syntax) match(s []byte, i int) (seg segment, end int, ok bool) {
	if i+1 >= len(s) {
		return seg, 0, false
	}
	switch s[i+1] {
	case '{':
		if name, e := enclosedName(s, i+3, "}}", isBraceNameChar, isBraceNameChar); i+2 < len(s) && s[i+2] == '{' && e > 0 {
			return sx.reference(s[i:e], name, true, false), e, true
		}
		if name, e := enclosedName(s, i+2, "}", isBraceNameChar, isBraceNameChar); e > 0 {
			return sx.reference(s[i:e], name, false, false), e, true
		}
	case '(':
		if sx.dialect != Stencil {
			return seg, 0, false
		}
		if name, e := enclosedName(s, i+3, "))", isParenNameStart, isParenNameChar); i+2 < len(s) && s[i+2] == '(' && e > 0 {
			return sx.reference(s[i:e], name, true, true), e, true
		}
		if name, e := enclosedName(s, i+2, ")", isParenNameStart, isParenNameChar); e > 0 {
			if _, declared := sx.params[string(name)]; declared {
				return sx.reference(s[i:e], name, false, true), e, true
			}
		}
	}
	return seg, 0, false
}

// enclosedName reads a name at s[at:] followed by closer and returns the name and the offset
// after closer, or end 0 when there is no such name.
func enclosedName(s []byte, at int, closer string, first, rest func(byte) bool) (name []byte, end int) {
	j := at
	for j < len(s) && (j == at && first(s[j]) || j > at && rest(s[j])) {
		j++
	}
	if j == at || j+len(closer) > len(s) || string(s[j:j+len(closer)]) != closer {
		return nil, 0
	}
	return s[at:j], j + len(closer)
}

func (sx *syntax) reference(text, name []byte, typed, paren bool) segment {
	param, declared := sx.params[string(name)]
	if !declared {
		param = -1
	}
	return segment{text: text, ref: true, name: string(name), param: param, typed: typed, paren: paren}
}

// split cuts s into literal text and references in one pass, applying the $$ escape of the
// Stencil dialect. changed reports whether the literal text differs from s even without any
// reference, which happens when an escape was removed. The segments' text may alias s.
func (sx *syntax) split(s []byte) (segs []segment, changed bool) {
	var lit []byte
	litStart := 0 // start of the literal text not yet copied into lit
	flush := func(end int) {
		if end > litStart {
			lit = append(lit, s[litStart:end]...)
		}
	}
	for i := 0; i < len(s); {
		if s[i] != '$' {
			i++
			continue
		}
		if sx.dialect == Stencil && i+1 < len(s) && s[i+1] == '$' {
			if _, end, ok := sx.match(s, i+1); ok {
				// "$$" before a reference: drop one "$" and keep the reference as text.
				flush(i)
				litStart = i + 1
				i = end
				changed = true
				continue
			}
			i++
			continue
		}
		seg, end, ok := sx.match(s, i)
		if !ok {
			i++
			continue
		}
		flush(i)
		if len(lit) > 0 {
			segs = append(segs, segment{text: lit, param: -1})
			lit = nil
		}
		segs = append(segs, seg)
		litStart, i = end, end
	}
	flush(len(s))
	if len(lit) > 0 {
		segs = append(segs, segment{text: lit, param: -1})
	}
	return segs, changed
}

// hasReference reports whether split would find a reference or an escape in s: a quick test
// that lets most strings stay as they are.
func (sx *syntax) hasReference(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			if _, _, ok := sx.match(s, i); ok {
				return true
			}
		}
	}
	return false
}
