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

package jsonbytes

import (
	"math/bits"
	"unicode/utf8"
)

// hexDigits spell \u00XX escapes.
const hexDigits = "0123456789abcdef"

// AppendEscaped appends s as the content of a JSON string (without quotes). Invalid UTF-8
// becomes U+FFFD, so the output is always valid JSON.
func AppendEscaped[T ~[]byte | ~string](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = AppendEscapedASCII(dst, c)
		i++
		start = i
	}
	return append(dst, s[start:]...)
}

// AppendEscapedASCII appends the escape of one ASCII byte inside a JSON string: the two-letter
// forms JSON has (\" \\ \n \r \t \b \f), \u00XX for any other. Writers call it for the bytes
// that cannot stand as themselves (quotes, backslashes, control characters) and for those they
// choose to escape, as encoding/json does <, > and & for HTML.
func AppendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	default:
		return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
	}
}

// AppendQuoted appends s as a JSON string.
func AppendQuoted[T ~[]byte | ~string](dst []byte, s T) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// htmlSafe marks the bytes encoding/json writes as themselves in a string, for HTML: ASCII
// from 0x20, but for ", \, <, > and &. One lookup a byte instead of six comparisons: strings
// are most of what the YAML reader writes.
var htmlSafe = func() (safe [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

// AppendQuotedHTML appends s as encoding/json writes a string: quoted, with <, > and &
// escaped for HTML, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func AppendQuotedHTML[T ~[]byte | ~string](dst []byte, s T) []byte {
	dst = append(dst, '"')
	dst = AppendEscapedHTML(dst, s)
	return append(dst, '"')
}

// AppendEscapedHTML appends s as the content of a JSON string (without its quotes) as
// AppendQuotedHTML writes it: for a writer that builds a string's content from parts (the YAML
// reader, a block scalar's lines).
func AppendEscapedHTML[T ~[]byte | ~string](dst []byte, s T) []byte {
	start := 0
	i := 0
	for i+8 <= len(s) {
		// Eight bytes at a time (the run of a long string: a description, a script). A word
		// that holds a byte to look at is passed to that byte at once: a script's line feeds
		// and quotes, one every few words, do not send the rest of their words byte by byte.
		// A word of eight: its length known, the compiler reads it in one load, with no check
		// of each byte's index.
		w := s[i : i+8]
		unsafe := htmlUnsafe(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56)
		if unsafe == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(unsafe) / 8
		dst, i, start = appendHTMLByte(dst, s, i, start)
	}
	for i < len(s) {
		if htmlSafe[s[i]] {
			i++
			continue
		}
		dst, i, start = appendHTMLByte(dst, s, i, start)
	}
	return append(dst, s[start:]...)
}

// AppendEscapedHTMLLine is AppendEscapedHTML of the line s starts with: s up to its first line
// feed (or the carriage return of a CRLF before it), or all of s. It returns how many bytes
// of s the line holds. A writer of a text line by line (the YAML reader, a block scalar's
// lines) so finds each line's end in the pass that escapes the line (a line feed is a byte
// the pass stops at anyway), not in a search of its own before it.
func AppendEscapedHTMLLine(dst, s []byte) ([]byte, int) {
	start, i := 0, 0
	for {
		for i+8 <= len(s) {
			// As AppendEscapedHTML: eight bytes a step, to the first byte to look at.
			w := s[i : i+8]
			unsafe := htmlUnsafe(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56)
			if unsafe != 0 {
				i += bits.TrailingZeros64(unsafe) / 8
				break
			}
			i += 8
		}
		if i+8 > len(s) {
			for i < len(s) && htmlSafe[s[i]] {
				i++
			}
			if i == len(s) {
				return append(dst, s[start:]...), len(s)
			}
		}
		if c := s[i]; c == '\n' || c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			return append(dst, s[start:i]...), i
		}
		dst, i, start = appendHTMLByte(dst, s, i, start)
	}
}

// appendHTMLByte writes what AppendQuotedHTML writes for the character at s[i], with the
// bytes from start before it; it returns where the next character is, and where the bytes
// not yet written start.
func appendHTMLByte[T ~[]byte | ~string](dst []byte, s T, i, start int) ([]byte, int, int) {
	c := s[i]
	if htmlSafe[c] {
		return dst, i + 1, start // a DEL, which the word's test does not pass
	}
	if c < utf8.RuneSelf {
		dst = append(dst, s[start:i]...)
		return AppendEscapedASCII(dst, c), i + 1, i + 1
	}
	r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
	switch {
	case r == utf8.RuneError && size == 1:
		dst = append(dst, s[start:i]...)
		dst = append(dst, `\ufffd`...)
	case r == '\u2028' || r == '\u2029':
		dst = append(dst, s[start:i]...)
		dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
	default:
		return dst, i + size, start
	}
	return dst, i + size, i + size
}

// HTMLSafeWord reports that each of the eight bytes of x is one AppendQuotedHTML writes as
// it is (a DEL, safe, is left to the byte loop).
func HTMLSafeWord(x uint64) bool { return htmlUnsafe(x) == 0 }

// htmlUnsafe has the high bit of the first byte of x (the lowest) that AppendQuotedHTML may
// not write as it is, and perhaps of bytes after it; zero when there is none (a DEL, safe,
// is flagged too). (x|(x+ones)|(x-ones*0x20))&highs flags each byte not from 0x20 to 0x7e
// (a carry or a borrow crosses into the next byte only from a byte already flagged),
// (y-ones)&^y&highs each zero byte of y and perhaps bytes after one: y is x with the bytes "
// and & (which differ in one bit, 0x04) made zero, then < and > (0x02), then \.
func htmlUnsafe(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quoteAmp := (x ^ ones*'"') &^ (ones * 0x04)
	angles := (x ^ ones*'<') &^ (ones * 0x02)
	backslash := x ^ ones*'\\'
	return (x|(x+ones)|(x-ones*0x20))&highs |
		(quoteAmp-ones)&^quoteAmp&highs | (angles-ones)&^angles&highs | (backslash-ones)&^backslash&highs
}
