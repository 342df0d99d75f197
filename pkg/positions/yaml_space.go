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
	"math/bits"
)

// The parser's steps over the source's bytes: where it is, line breaks, spaces, comments and
// document markers.

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) column() int { return p.pos - p.lineStart }

// at returns the byte at p.pos+k, or 0 past the end.
func (p *parser) at(k int) byte {
	if p.pos+k < len(p.src) {
		return p.src[p.pos+k]
	}
	return 0
}

// blankAt reports whether the byte at p.pos+k is a space, a line break or the end.
func (p *parser) blankAt(k int) bool {
	c := p.at(k)
	return c == 0 && p.pos+k >= len(p.src) || c == ' ' || c == '\n' || c == '\r'
}

func (p *parser) breakAt(k int) bool { c := p.at(k); return c == '\n' || c == '\r' }

// atMarker reports a document marker (--- or ...) at the start of a line. Its first test is
// inlined where it is asked: most places it is asked (each word of a plain scalar, each
// member) are not at a line's start.
func (p *parser) atMarker(c byte) bool { return p.pos == p.lineStart && p.markerAt(c) }

// markerAt is atMarker at the start of a line.
func (p *parser) markerAt(c byte) bool {
	if p.at(0) != c || p.at(1) != c || p.at(2) != c {
		return false
	}
	if p.at(3) == '\t' {
		bail() // a marker to libyaml, a tab being a blank
	}
	return p.blankAt(3)
}

// newline consumes the line break at p.pos. Reading a stream (markerLines), it checks the
// next line as plainMarkers would when it starts with '-' or '.': every line break of a stream
// the reader reads whole passes here, so the stream's lines are checked in the reader's own
// pass instead of a search of the whole stream before it (2% of a server's YAML request).
func (p *parser) newline() {
	// A CR (its low bit set, a LF's clear) is always followed by a LF (printable): two bytes.
	p.pos += 1 + int(p.src[p.pos]&1)
	p.lineStart = p.pos
	if p.markerLines {
		p.checkMarkerLine()
	}
}

// checkMarkerLine leaves the stream to the caller's split (bail) when the line at p.pos is
// one plainMarkers refuses. It is never inlined: newline, inlined at every line break the
// reader passes, must stay small (inlined there, this made every read 2% slower).
//
//go:noinline
func (p *parser) checkMarkerLine() {
	if p.pos < len(p.src) && (p.src[p.pos] == '-' || p.src[p.pos] == '.') && !plainMarkerLine(p.src[p.pos:]) {
		bail()
	}
}

func (p *parser) skipSpaces() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

// skipToToken skips spaces, comments and line breaks to the next token.
func (p *parser) skipToToken() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ':
			p.pos++
		case '#':
			if p.pos > p.lineStart && p.src[p.pos-1] != ' ' && p.src[p.pos-1] != '\t' {
				bail() // libyaml reads it as a comment, the YAML spec not
			}
			p.comment()
		case '\n', '\r':
			p.newline()
			p.pos = indentEnd(p.src, p.pos)
		default:
			return
		}
	}
}

// indentEnd returns the offset of the first byte at or after i in src that is not a space: a
// line's indentation, passed eight bytes a step (a template's lines are indented by 2 to 20
// spaces, and every line's indentation is read).
func indentEnd(src []byte, i int) int {
	for i+8 <= len(src) {
		if x := binary.LittleEndian.Uint64(src[i:]) ^ ones*' '; x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
		i += 8
	}
	for i < len(src) && src[i] == ' ' {
		i++
	}
	return i
}

// comment skips a comment to the end of its line.
func (p *parser) comment() {
	for p.pos < len(p.src) && !p.breakAt(0) {
		if p.src[p.pos] == '\t' {
			p.tabs++
		}
		p.pos++
	}
}

// lineEnd checks that the rest of the line is spaces and a comment, and goes to the next
// token.
func (p *parser) lineEnd() {
	p.skipSpaces()
	if !p.eof() && !p.breakAt(0) && p.src[p.pos] != '#' {
		bail()
	}
	p.skipToToken()
}
