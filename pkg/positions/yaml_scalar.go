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
	"bytes"
	"encoding/binary"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// Scalars are read as libyaml's scanner reads them (scannerc.go of go.yaml.in/yaml/v2): the
// same folding of line breaks and spaces, escapes and block scalar indentation. A scalar that
// is one run of the source is kept as that run; any other is written into the arena.

// plain reads a plain scalar, which may go on over the lines indented more than indent (in a
// flow collection, flow, over any lines). In the block context a ": " in it is an error in
// libyaml (a key where none may be), left to it; in a flow collection ": ", ',', '?', '[',
// ']', '{' and '}' end it.
func (p *parser) plain(indent int, flow bool) int32 {
	switch c := p.at(0); {
	case c == '\t':
		bail() // libyaml skips it before the scalar, or refuses it
	case (c == '-' || c == '?' || c == ':') && p.at(1) == '\t':
		bail() // an indicator to libyaml, a tab being a blank
	}
	stops := &plainStops
	if flow {
		stops = &flowPlainStops
	}
	start := p.pos
	n := p.newNode(kindScalar, stylePlain, start)
	end := start
	inArena, from := false, 0
	leadingBlanks, breaks, spaceFrom := false, 0, -1
	escapes := p.hasTabs // a tab between words, which the scan does not look for
	for {
		if p.atMarker('-') || p.atMarker('.') || p.at(0) == '#' {
			break
		}
		run := p.pos
	scan:
		for {
			// A word's bytes are passed through a table, on locals: only blanks, a colon and,
			// in a flow collection, its indicators need a look.
			src, i := p.src, p.pos
			for i < len(src) && !stops[src[i]] {
				i++
			}
			p.pos = i
			if p.pos >= len(p.src) {
				break
			}
			switch c := p.src[p.pos]; {
			case c == ':' && (p.blankAt(1) || p.at(1) == '\t'):
				if !flow {
					bail()
				}
				break scan
			case c == ':':
				p.pos++ // inside a word
			case escapedInWord[c]:
				escapes = true // a byte the scalar's JSON string escapes, or may
				p.pos++
			case c == ' ' && p.pos+1 < len(src) && !stops[src[p.pos+1]] && src[p.pos+1] != '#':
				// One space between two words of a line is the scalar's own, in the arena
				// too: the next word is read in the same run.
				p.pos++
			default: // a blank, a tab, or a flow indicator in a flow collection
				break scan
			}
		}
		if p.pos > run {
			switch {
			case leadingBlanks:
				if !inArena {
					inArena, from = true, len(p.arena)
					p.arena = append(p.arena, p.src[start:end]...)
				}
				p.arena = appendFold(p.arena, breaks)
				leadingBlanks, breaks = false, 0
			case inArena && spaceFrom >= 0:
				p.arena = append(p.arena, p.src[spaceFrom:run]...)
			}
			if inArena {
				p.arena = append(p.arena, p.src[run:p.pos]...)
			}
			end, spaceFrom = p.pos, -1
		}
		if p.eof() || !isWhite(p.src[p.pos]) && !p.breakAt(0) {
			break
		}
		// Spaces and tabs between words are kept, those around line breaks dropped; a tab
		// that starts a line of the scalar is libyaml's error where the line is not indented
		// past the scalar's collection (inside a flow collection, left to it alike).
		for !p.eof() && (isWhite(p.src[p.pos]) || p.breakAt(0)) {
			if c := p.src[p.pos]; isWhite(c) {
				if c == '\t' {
					if leadingBlanks && (flow || p.column() < indent+1) {
						bail()
					}
					p.tabs++
				}
				if !leadingBlanks && spaceFrom < 0 {
					spaceFrom = p.pos
				}
				p.pos++
				continue
			}
			spaceFrom, leadingBlanks = -1, true
			breaks++
			p.newline()
			p.pos = indentEnd(p.src, p.pos)
		}
		if !flow && p.column() < indent+1 {
			break
		}
	}
	p.setValue(n, inArena, from, start, end)
	if !inArena && !escapes {
		p.nodes[n].flags |= nodeClean
	}
	p.skipToToken()
	return n
}

// isWhite reports a space or a tab, libyaml's blanks within a line.
func isWhite(c byte) bool { return c == ' ' || c == '\t' }

// appendFold joins two lines of a scalar separated by breaks line breaks: one is a space,
// more are one newline fewer.
func appendFold(dst []byte, breaks int) []byte {
	if breaks == 1 {
		return append(dst, ' ')
	}
	for i := 1; i < breaks; i++ {
		dst = append(dst, '\n')
	}
	return dst
}

func (p *parser) setValue(n int32, inArena bool, from, start, end int) {
	if inArena {
		p.nodes[n].a, p.nodes[n].b, p.nodes[n].inArena = int32(from), int32(len(p.arena)), true
		return
	}
	p.nodes[n].a, p.nodes[n].b = int32(start), int32(end)
	p.runBytes += end - start
}

// quoted reads a single- or double-quoted scalar, leaving p.pos after its closing quote.
func (p *parser) quoted() int32 {
	start := p.pos
	n := p.newNode(kindScalar, styleQuoted, start)
	if end, escape, escaped := quotedLine(p.src, start); end > 0 && !escape {
		// On one line, spaces and tabs are the scalar's own.
		if p.hasTabs {
			p.tabs += bytes.Count(p.src[start+1:end-1], []byte{'\t'})
		}
		p.nodes[n].a, p.nodes[n].b = int32(start+1), int32(end-1)
		if !escaped {
			p.nodes[n].flags |= nodeClean
		}
		p.runBytes += end - 2 - start
		p.pos = end
		return n
	}
	single := p.src[start] == '\''
	from := len(p.arena)
	p.pos++
	for {
		if p.atMarker('-') || p.atMarker('.') || p.eof() {
			bail() // libyaml: unexpected document indicator, or end of stream
		}
		leadingBlanks := false
	content:
		for !p.blankAt(0) && p.src[p.pos] != '\t' {
			c := p.src[p.pos]
			switch {
			case single && c == '\'' && p.at(1) == '\'':
				p.arena = append(p.arena, '\'')
				p.pos += 2
			case single && c == '\'', !single && c == '"':
				break content
			case !single && c == '\\' && p.breakAt(1):
				p.pos++
				p.newline()
				leadingBlanks = true
				break content
			case !single && c == '\\':
				p.escape()
			default:
				p.arena = append(p.arena, c)
				p.pos++
			}
		}
		if c := p.at(0); single && c == '\'' || !single && c == '"' {
			break
		}
		// Spaces and tabs within a line are kept, those around a line break dropped.
		spaceFrom, leadingBreak, trailing := -1, false, 0
		for !p.eof() && (isWhite(p.src[p.pos]) || p.breakAt(0)) {
			if isWhite(p.src[p.pos]) {
				if p.src[p.pos] == '\t' {
					p.tabs++
				}
				if !leadingBlanks && spaceFrom < 0 {
					spaceFrom = p.pos
				}
				p.pos++
				continue
			}
			if !leadingBlanks {
				spaceFrom, leadingBreak, leadingBlanks = -1, true, true
			} else {
				trailing++
			}
			p.newline()
		}
		switch {
		case leadingBreak && trailing == 0:
			p.arena = append(p.arena, ' ')
		case leadingBlanks:
			for ; trailing > 0; trailing-- {
				p.arena = append(p.arena, '\n')
			}
		case spaceFrom >= 0:
			p.arena = append(p.arena, p.src[spaceFrom:p.pos]...)
		}
	}
	p.pos++
	p.setValue(n, true, from, 0, 0)
	return n
}

// blockScalar reads a literal (|) or folded (>) scalar whose parent collection is at indent.
func (p *parser) blockScalar(indent int) int32 {
	n := p.newNode(kindScalar, styleQuoted, p.pos)
	literal := p.src[p.pos] == '|'
	p.pos++
	chomping, increment := 0, 0
	for k := 0; k < 2; k++ {
		switch c := p.at(0); {
		case (c == '+' || c == '-') && chomping == 0:
			chomping = 1
			if c == '-' {
				chomping = -1
			}
			p.pos++
		case c >= '1' && c <= '9' && increment == 0:
			increment = int(c - '0')
			p.pos++
		case c == '0':
			bail()
		}
	}
	if p.at(0) == '#' {
		bail() // a comment right after the indicators: libyaml reads it as one, the spec not
	}
	p.skipSpaces()
	if p.at(0) == '#' {
		p.comment()
	}
	if !p.eof() && !p.breakAt(0) {
		bail()
	}
	if !p.eof() {
		p.newline()
	}
	blockIndent := 0
	if increment > 0 {
		blockIndent = increment
		if indent >= 0 {
			blockIndent += indent
		}
	}
	// The value is written into the arena as its JSON string's content, line by line: its line
	// breaks (a script's, one every few words) as the escapes they are, not found again in the
	// value by the emitter. raw counts the value's own bytes, kept in the four bytes before it
	// (the emitter's bound counts those).
	p.arena = append(p.arena, 0, 0, 0, 0)
	from, raw := len(p.arena), 0
	trailing := p.blockBreaks(&blockIndent, indent)
	leadingBreak, leadingBlank := false, false
	for p.column() == blockIndent && !p.eof() {
		trailingBlank := isWhite(p.src[p.pos])
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			if trailing == 0 {
				p.arena = append(p.arena, ' ')
				raw++
			}
		} else if leadingBreak {
			p.arena = append(p.arena, '\\', 'n')
			raw++
		}
		p.arena, raw = appendBreaks(p.arena, trailing), raw+trailing
		leadingBlank = trailingBlank
		// The line is escaped and its end found in one pass: its line feed, or the CR of a
		// CRLF (the source holds no lone CR: printable).
		run := p.pos
		var n int
		p.arena, n = jsonbytes.AppendEscapedHTMLLine(p.arena, p.src[run:])
		p.pos += n
		if p.hasTabs {
			p.tabs += bytes.Count(p.src[run:p.pos], []byte{'\t'}) // text of the line, past its indentation
		}
		raw += n
		leadingBreak = !p.eof()
		if leadingBreak {
			p.newline()
		}
		trailing = p.blockBreaks(&blockIndent, indent)
	}
	if chomping != -1 && leadingBreak {
		p.arena = append(p.arena, '\\', 'n')
		raw++
	}
	if chomping == 1 {
		p.arena, raw = appendBreaks(p.arena, trailing), raw+trailing
	}
	p.setValue(n, true, from, 0, 0)
	p.nodes[n].flags |= nodeEscaped
	binary.LittleEndian.PutUint32(p.arena[from-4:from], uint32(raw))
	p.skipToToken()
	return n
}

// appendBreaks writes n line breaks escaped.
func appendBreaks(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, '\\', 'n')
	}
	return dst
}

// blockBreaks skips the indentation and the empty lines before a line of a block scalar,
// returning how many line breaks it skipped, and sets the indentation when it is not known
// yet (zero) from the deepest of those lines, as libyaml does.
func (p *parser) blockBreaks(blockIndent *int, indent int) int {
	breaks, maxIndent := 0, 0
	for {
		if *blockIndent == 0 {
			p.pos = indentEnd(p.src, p.pos)
		} else {
			p.pos = indentEnd(p.src[:min(p.lineStart+*blockIndent, len(p.src))], p.pos)
		}
		maxIndent = max(maxIndent, p.column())
		if (*blockIndent == 0 || p.column() < *blockIndent) && p.at(0) == '\t' {
			bail() // libyaml: found a tab character where an indentation space is expected
		}
		if !p.breakAt(0) {
			break
		}
		breaks++
		p.newline()
	}
	if *blockIndent == 0 {
		*blockIndent = max(maxIndent, indent+1, 1)
	}
	return breaks
}
