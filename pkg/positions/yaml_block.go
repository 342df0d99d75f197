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

// The block structure, as libyaml reads it: a collection's entries start at one column, a
// value on the lines below its key is indented more than the key (or is a sequence at the
// key's own column), and the innermost collection's column (libyaml's indent, the indent
// argument below) bounds the continuation lines of plain and block scalars. Each function
// starts at its node's first character and returns at the next token.

// blockNode reads the node at p.pos, at the start of a line or after "- ", where a block
// mapping or sequence may start.
func (p *parser) blockNode(indent int) int32 {
	p.enter()
	defer p.leave()
	c := p.column()
	switch p.src[p.pos] {
	case '-':
		if p.blankAt(1) {
			return p.blockSequence(c, false)
		}
	case '&':
		p.readAnchor()
		p.skipSpaces()
		if p.eof() || p.breakAt(0) || p.at(0) == '#' {
			return p.valueBelow(indent, false)
		}
		if p.keyAhead() || p.at(0) == '&' || p.at(0) == '*' || p.at(0) == '-' && p.blankAt(1) {
			bail() // an anchor on a key, or on a node that cannot take one here
		}
		return p.blockNode(indent)
	}
	if p.keyAhead() {
		return p.blockMapping(c)
	}
	return p.inlineValue(indent)
}

// inlineValue reads a value that is not a block collection: after "key: " on its line, or
// at blockNode's place when it is not a collection.
func (p *parser) inlineValue(indent int) int32 {
	switch ch := p.src[p.pos]; ch {
	case '&':
		p.readAnchor()
		p.skipSpaces()
		if p.eof() || p.breakAt(0) || p.at(0) == '#' {
			return p.valueBelow(indent, true)
		}
		if p.at(0) == '&' || p.at(0) == '*' {
			bail()
		}
		return p.inlineValue(indent)
	case '*':
		n := p.readAlias()
		p.lineEnd()
		return n
	case '[', '{':
		n := p.flowCollection()
		p.lineEnd()
		return n
	case '|', '>':
		return p.blockScalar(indent)
	case '\'', '"':
		n := p.quoted()
		p.lineEnd()
		return n
	case '-':
		if p.blankAt(1) {
			bail() // a sequence entry where libyaml allows none
		}
	case '?', ':':
		if p.blankAt(1) || p.at(1) == '\t' {
			bail() // a complex key or an empty key, left to libyaml
		}
		// Followed by a character, it starts a plain scalar in the block context (- :8080).
	case '!', '%', '@', '`', ',', ']', '}', '#':
		bail()
	}
	return p.plain(indent, false)
}

// valueBelow reads the value of a key (or the node of an anchor) that is not on its line:
// a node indented more than indent, a sequence at indent's own column (the indentless
// sequence of a mapping's value, when indentless), or else an empty node, null.
func (p *parser) valueBelow(indent int, indentless bool) int32 {
	p.skipToToken()
	if p.eof() || p.atMarker('-') || p.atMarker('.') {
		return p.emptyNode()
	}
	switch d := p.column(); {
	case d > indent:
		return p.blockNode(indent)
	case d == indent && p.src[p.pos] == '-' && p.blankAt(1):
		if !indentless {
			bail() // an anchored empty entry before the next one: rare, left to libyaml
		}
		return p.blockSequence(d, true)
	}
	return p.emptyNode()
}

// emptyNode is the empty scalar libyaml reads where a node is missing: null (or the pending
// anchor's null).
func (p *parser) emptyNode() int32 {
	n := p.newNode(kindScalar, stylePlain, p.pos)
	p.nodes[n].a, p.nodes[n].b = 0, 0
	return n
}

// blockMapping reads the mapping whose first key is at p.pos, column c.
func (p *parser) blockMapping(c int) int32 {
	m := p.newNode(kindMapping, 0, p.pos)
	mark := len(p.stack)
	for {
		if refusedKeyStarts[p.src[p.pos]] {
			bail()
		}
		k := p.key()
		p.pos++ // ':'
		p.skipSpaces()
		var v int32
		if p.eof() || p.breakAt(0) || p.at(0) == '#' {
			p.lineEnd()
			v = p.valueBelow(c, true)
		} else {
			v = p.inlineValue(c)
		}
		p.stack = append(p.stack, k, v)
		if p.eof() || p.atMarker('-') || p.atMarker('.') || p.column() < c {
			break
		}
		if p.column() > c || !p.keyAhead() {
			bail() // libyaml: did not find expected key, or a value where it allows none
		}
	}
	p.collect(m, mark)
	return m
}

// blockSequence reads the sequence whose first "-" is at p.pos, column c. An indentless
// sequence (a mapping's value at the mapping's column) ends at the mapping's next key.
func (p *parser) blockSequence(c int, indentless bool) int32 {
	s := p.newNode(kindSequence, 0, p.pos)
	mark := len(p.stack)
	for {
		p.pos++ // '-'
		p.skipSpaces()
		var item int32
		if p.eof() || p.breakAt(0) || p.at(0) == '#' {
			p.lineEnd()
			item = p.itemBelow(c)
		} else {
			item = p.blockNode(c)
		}
		p.stack = append(p.stack, item)
		if p.eof() || p.atMarker('-') || p.atMarker('.') || p.column() < c {
			break
		}
		if p.column() == c && p.src[p.pos] == '-' && p.blankAt(1) {
			continue
		}
		if p.column() == c && indentless {
			break
		}
		bail() // libyaml: did not find expected '-' indicator
	}
	p.collect(s, mark)
	return s
}

// itemBelow reads a sequence entry that is not on the line of its "-".
func (p *parser) itemBelow(c int) int32 {
	if p.eof() || p.atMarker('-') || p.atMarker('.') || p.column() <= c {
		return p.emptyNode()
	}
	return p.blockNode(c)
}

// keyAhead reports whether a simple key starts at p.pos: a plain or quoted scalar on one
// line followed by ':' and a space or line break.
func (p *parser) keyAhead() bool {
	i := p.pos
	src := p.src
	switch src[i] {
	case '\'', '"':
		end := quotedEnd(src, i)
		if end < 0 {
			return false
		}
		for end < len(src) && src[end] == ' ' {
			end++
		}
		return end < len(src) && src[end] == ':' && (end+1 == len(src) || isBlank(src[end+1]))
	case '-', '?', ':':
		if i+1 >= len(src) || isBlank(src[i+1]) {
			return false
		}
	case '&', '*', '!', '|', '>', '%', '@', '`', ',', '[', ']', '{', '}', '#':
		return false
	}
	escapes := p.hasTabs // a tab in the key, which the scan does not look for
	for ; i < len(src); i++ {
		c := src[i]
		if !keyLineStops[c] {
			continue // one lookup passes the text of the line
		}
		switch c {
		case '\n', '\r':
			return false
		case ':':
			if i+1 == len(src) || isBlank(src[i+1]) {
				// for key, which reads this key next
				p.keyAt, p.colonAt, p.keyClean = p.pos, i, !escapes
				return true
			}
		case '#':
			if src[i-1] == ' ' {
				return false
			}
		default:
			escapes = true // a byte the key's JSON string escapes, or may
		}
	}
	return false
}

// refusedKeyStarts are the first bytes of a mapping's key that the fast reader leaves to
// libyaml: an anchor or alias, a tag, a flow collection, a complex key.
var refusedKeyStarts = [256]bool{'&': true, '*': true, '!': true, '[': true, '{': true, '?': true}

// keyLineStops are the bytes keyAhead looks at on a line: its end, a colon, a comment's '#',
// and those a key's JSON string escapes or may (escapedInWord), only to note them.
var keyLineStops = func() (stops [256]bool) {
	stops = escapedInWord
	for _, c := range []byte("\n\r:#") {
		stops[c] = true
	}
	return stops
}()

func isBlank(c byte) bool { return c == ' ' || c == '\n' || c == '\r' }

// quotedEnd returns the offset after the quoted scalar starting at src[i] when it ends on its
// line, or -1.
func quotedEnd(src []byte, i int) int {
	end, _, _ := quotedLine(src, i)
	return end
}

// quotedLine is quotedEnd, also saying whether the scalar holds an escape of its style (a
// backslash in a double-quoted one, a doubled quote in a single-quoted one: its value is not
// its text) and whether its text holds a byte a JSON string escapes, or may.
func quotedLine(src []byte, i int) (end int, escape, escaped bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		if !quotedStops[c] {
			continue // one lookup passes the text
		}
		switch c {
		case '\n', '\r':
			return -1, escape, escaped
		case q:
			if q == '\'' && j+1 < len(src) && src[j+1] == '\'' {
				j++
				escape = true
				continue
			}
			return j + 1, escape, escaped
		case '\\':
			if q == '"' {
				j++
				escape = true
				continue
			}
		}
		escaped = true // a tab, a quote or backslash of the other style, or escapedInWord's
	}
	return -1, escape, escaped
}

// quotedStops are the bytes quotedLine looks at: the ends of a line, the quotes, backslashes,
// tabs and the bytes a JSON string escapes or may.
var quotedStops = func() (stops [256]bool) {
	for c := range 256 {
		stops[c] = escapedInWord[c]
	}
	for _, c := range []byte("\n\r\t'\"\\") {
		stops[c] = true
	}
	return stops
}()

// key reads the simple key keyAhead found, leaving p.pos at its ':'.
func (p *parser) key() int32 {
	start := p.pos
	var k int32
	if c := p.src[p.pos]; c == '\'' || c == '"' {
		k = p.quoted()
		p.skipSpaces()
	} else {
		k = p.newNode(kindScalar, stylePlain, start)
		if p.keyAt == start {
			p.pos = p.colonAt // keyAhead found the ':' that ends the key
			if p.keyClean {
				p.nodes[k].flags |= nodeClean
			}
		} else {
			for p.src[p.pos] != ':' || !p.blankAt(1) {
				p.pos++
			}
		}
		end := p.pos
		for end > start && p.src[end-1] == ' ' {
			end--
		}
		p.nodes[k].a, p.nodes[k].b = int32(start), int32(end)
		p.runBytes += end - start
	}
	if p.pos-start > 1000 {
		bail() // libyaml's simple keys end at 1024 characters
	}
	return k
}

// readAnchor reads &name as the pending anchor of the next node.
func (p *parser) readAnchor() {
	if p.hasPending {
		bail()
	}
	p.pending = string(p.name())
	p.hasPending = true
}

// readAlias reads *name.
func (p *parser) readAlias() int32 {
	if p.hasPending {
		bail() // an anchor on an alias (its line above): libyaml's error
	}
	at := p.pos
	name := p.name()
	for i := len(p.anchors) - 1; i >= 0; i-- {
		if p.anchors[i].name == string(name) {
			n := p.newNode(kindAlias, 0, at)
			p.nodes[n].a = p.anchors[i].node
			p.hasAliases = true
			return n
		}
	}
	bail() // unknown anchor
	return -1
}

// name reads the name after & or *: letters, digits, '-' and '_', then a space, a line
// break, the end or (in flow collections) ',', ']' or '}'.
func (p *parser) name() []byte {
	p.pos++
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			p.pos++
			continue
		}
		break
	}
	if p.pos == start || !p.blankAt(0) && p.at(0) != ',' && p.at(0) != ']' && p.at(0) != '}' {
		bail()
	}
	return p.src[start:p.pos]
}
