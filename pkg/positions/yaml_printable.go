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

import (
	"encoding/binary"
	"unicode/utf8"
)

// printable reports whether src holds only what the fast reader reads as libyaml does: no
// control characters but tabs, lone carriage returns, line breaks other than LF and CRLF (NEL,
// LS, PS), byte order marks past the start, or invalid UTF-8. tabs says whether it holds a
// tab, which the reader takes only where libyaml takes it as text (checkTabs).
func printable(src []byte) (ok, tabs bool) {
	for i := 0; i < len(src); {
		// Eight bytes at a time while none is below 0x20 but a line feed (a tab, a control),
		// 0x7f or above (DEL, UTF-8): most of a template's bytes, read here before the
		// parser reads them again. A word that holds one is read byte by byte.
		for i+32 <= len(src) {
			// Thirty-two at a time, the four words' checks in one: a text's long runs.
			w := src[i : i+32]
			x, y := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
			u, v := binary.LittleEndian.Uint64(w[16:]), binary.LittleEndian.Uint64(w[24:])
			// outside's mask taken once for the four: (a&m)|(b&m) is (a|b)&m.
			if (unmasked(x|lineFeeds(x)>>2)|unmasked(y|lineFeeds(y)>>2)|unmasked(u|lineFeeds(u)>>2)|unmasked(v|lineFeeds(v)>>2))&highs != 0 {
				break
			}
			i += 32
		}
		for i+16 <= len(src) {
			// Sixteen at a time, the two words' checks in one.
			w := src[i : i+16]
			x, y := binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
			if outside(x|lineFeeds(x)>>2)|outside(y|lineFeeds(y)>>2) != 0 {
				break
			}
			i += 16
		}
		if i+8 <= len(src) {
			if x := binary.LittleEndian.Uint64(src[i:]); printableWord(x | lineFeeds(x)>>2) {
				i += 8
				continue
			}
		}
		for word := min(i+8, len(src)); i < word; {
			c := src[i]
			if c >= 0x20 && c < 0x7f || c == '\n' {
				i++
				continue
			}
			switch {
			case c == '\t':
				tabs = true
				i++
				continue
			case c == '\r':
				if i+1 < len(src) && src[i+1] == '\n' {
					i += 2
					continue
				}
				return false, tabs
			case c < 0x80:
				return false, tabs
			}
			r, size := utf8.DecodeRune(src[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				return false, tabs
			case r == 0xFEFF && i == 0:
			case r < 0xA0, r == 0x2028, r == 0x2029, r == 0xFEFF, r > 0xFFFD && r < 0x10000:
				return false, tabs
			}
			i += size
		}
	}
	return true, tabs
}

// printableWord reports that each byte of x is from 0x20 to 0x7e (see ones and highs).
func printableWord(x uint64) bool { return outside(x) == 0 }

// outside has the high bit of each byte of x that is not from 0x20 to 0x7e, and perhaps of
// bytes above one (a carry or a borrow); zero exactly when there is none.
func outside(x uint64) uint64 { return unmasked(x) & highs }

// unmasked is outside before its mask: its high bits are outside's, its others are noise.
func unmasked(x uint64) uint64 { return x | (x + ones) | (x - ones*0x20) }

// lineFeeds has the high bit of each byte of x that is a line feed, and no other bit: with
// z = x^(ones*'\n'), z&sevens+sevens carries into a byte's high bit exactly when the byte's
// low seven bits are not all zero, never into the next byte, and z's own high bit catches the
// rest. Shifted right by 2, it makes each line feed of x a '*', so that text read a line at a
// time is eight bytes a step too.
func lineFeeds(x uint64) uint64 {
	const sevens = 0x7f7f7f7f7f7f7f7f
	z := x ^ ones*'\n'
	return ^(z&sevens + sevens | z) & highs
}

// ones and highs are the lowest and the highest bit of each byte of a word. For x, eight bytes,
// (x|(x+ones)|(x-ones*0x20))&highs is zero exactly when each byte is from 0x20 to 0x7e: x holds
// the high bit of a byte 0x80 or above, x+ones that of 0x7f, x-ones*0x20 that of a byte below
// 0x20 (a carry or a borrow crosses into the next byte only from a byte already caught).
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)
