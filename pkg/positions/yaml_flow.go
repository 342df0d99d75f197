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

import "unicode/utf8"

// Flow collections ([a, b], {k: v}), which may span lines: libyaml checks no indentation
// inside them. What a template writes in them is read here: scalars, nested collections,
// anchors and aliases, keys without values; a pair in a sequence ([k: v]) and complex keys
// are left to libyaml.

// flowCollection reads the collection at p.pos, leaving p.pos after its closing bracket.
func (p *parser) flowCollection() int32 {
	p.enter()
	defer p.leave()
	mapping := p.src[p.pos] == '{'
	kind, closing := kindSequence, byte(']')
	if mapping {
		kind, closing = kindMapping, '}'
	}
	n := p.newNode(kind, 0, p.pos)
	p.pos++
	mark := len(p.stack)
	for {
		p.flowSpace()
		if p.at(0) == closing {
			break
		}
		if mapping {
			keyLine, keyStart := p.lineStart, p.pos
			k := p.flowKey()
			p.flowSpace()
			v := int32(0)
			switch p.at(0) {
			case ':':
				// libyaml takes a key only on the line of its ':' and at most 1024
				// bytes before it.
				if p.lineStart != keyLine || p.pos-keyStart > 1024 {
					bail()
				}
				p.pos++
				p.flowSpace()
				if c := p.at(0); c == ',' || c == '}' {
					v = p.emptyNode()
				} else {
					v = p.flowNode()
				}
			case ',', '}':
				v = p.emptyNode() // {a, b}: keys without values
			default:
				bail()
			}
			p.stack = append(p.stack, k, v)
		} else {
			p.stack = append(p.stack, p.flowNode())
		}
		p.flowSpace()
		switch p.at(0) {
		case ',':
			p.pos++
			continue
		case closing:
		default:
			bail()
		}
		break
	}
	p.pos++
	p.collect(n, mark)
	return n
}

func (p *parser) flowKey() int32 {
	switch p.at(0) {
	case '\'', '"':
		return p.quoted()
	case '[', '{', '*', '&', '!', '?', ':':
		bail()
	}
	return p.flowNode()
}

// flowNode reads a node inside a flow collection.
func (p *parser) flowNode() int32 {
	switch p.at(0) {
	case '[', '{':
		return p.flowCollection()
	case '\'', '"':
		return p.quoted()
	case '*':
		return p.readAlias()
	case '&':
		p.readAnchor()
		p.flowSpace()
		if c := p.at(0); c == ',' || c == ']' || c == '}' || c == '&' || c == '*' {
			bail()
		}
		return p.flowNode()
	case '-':
		if p.blankAt(1) {
			bail()
		}
	case '!', '|', '>', '%', '@', '`', ',', ']', '}', '#', '?', ':', 0:
		bail()
	}
	return p.plain(0, true)
}

// flowSpace skips spaces, line breaks and comments inside a flow collection.
func (p *parser) flowSpace() {
	p.skipToToken()
	if p.eof() || p.column() == 0 && (p.atMarker('-') || p.atMarker('.') || p.src[p.pos] == '%') {
		bail()
	}
}

// plainStops are the bytes a plain scalar's word ends at, or may (a colon), in the block
// context; flowPlainStops those in a flow collection, where ',', '?', '[', ']', '{' and '}'
// end it too.
// Both stop at the bytes of a word that its JSON string escapes or may (escapedInWord), only
// to note them: a scalar without any is written without a second look.
var plainStops, flowPlainStops = func() (block, flow [256]bool) {
	for _, c := range []byte(" \n\r\t:") {
		block[c], flow[c] = true, true
	}
	for _, c := range []byte(",?[]{}") {
		flow[c] = true
	}
	for c := range 256 {
		if escapedInWord[c] {
			block[c], flow[c] = true, true
		}
	}
	return block, flow
}()

// escapedInWord are the bytes a plain scalar's word may hold that encoding/json escapes in a
// string (quotes, backslashes, and <, > and & for HTML), or may (UTF-8's bytes: U+2028 and
// U+2029). Its other control characters cannot be there: a printable source holds none but
// tabs and line breaks, which end a word.
var escapedInWord = func() (escaped [256]bool) {
	for _, c := range []byte("\"\\<>&") {
		escaped[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		escaped[c] = true
	}
	return escaped
}()
