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

package positions

// The escapes of double-quoted scalars (yaml_scalar.go reads the scalars).

// escape writes the character of the escape sequence at p.pos, as libyaml reads it.
func (p *parser) escape() {
	var size int
	switch c := p.at(1); c {
	case '0':
		p.arena = append(p.arena, 0)
	case 'a':
		p.arena = append(p.arena, 7)
	case 'b':
		p.arena = append(p.arena, 8)
	case 't':
		p.arena = append(p.arena, 9)
	case '\t':
		p.arena = append(p.arena, 9)
		p.tabs++
	case 'n':
		p.arena = append(p.arena, 10)
	case 'v':
		p.arena = append(p.arena, 11)
	case 'f':
		p.arena = append(p.arena, 12)
	case 'r':
		p.arena = append(p.arena, 13)
	case 'e':
		p.arena = append(p.arena, 27)
	case ' ', '"', '\'', '\\':
		p.arena = append(p.arena, c)
	case 'N':
		p.arena = append(p.arena, "\u0085"...)
	case '_':
		p.arena = append(p.arena, "\u00a0"...)
	case 'L':
		p.arena = append(p.arena, "\u2028"...)
	case 'P':
		p.arena = append(p.arena, "\u2029"...)
	case 'x':
		size = 2
	case 'u':
		size = 4
	case 'U':
		size = 8
	default:
		bail() // libyaml: unknown escape character
	}
	p.pos += 2
	if size == 0 {
		return
	}
	value := 0
	for k := 0; k < size; k++ {
		d := hexValue(p.at(k))
		if d < 0 {
			bail()
		}
		value = value<<4 | d
	}
	if value >= 0xD800 && value <= 0xDFFF || value > 0x10FFFF {
		bail()
	}
	p.arena = appendRune(p.arena, value)
	p.pos += size
}

// appendRune writes the code point v as UTF-8, as libyaml writes an escape.
func appendRune(dst []byte, v int) []byte {
	switch {
	case v <= 0x7F:
		return append(dst, byte(v))
	case v <= 0x7FF:
		return append(dst, byte(0xC0+v>>6), byte(0x80+v&0x3F))
	case v <= 0xFFFF:
		return append(dst, byte(0xE0+v>>12), byte(0x80+(v>>6)&0x3F), byte(0x80+v&0x3F))
	}
	return append(dst, byte(0xF0+v>>18), byte(0x80+(v>>12)&0x3F), byte(0x80+(v>>6)&0x3F), byte(0x80+v&0x3F))
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
