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
	"bytes"
	"fmt"
	"unicode/utf8"
)

// ToYAML converts one JSON value to block-style YAML, writing it straight from the JSON bytes:
// member order and numbers stay as written, and nothing goes through maps or a YAML node tree,
// which costs more than processing itself on large lists. It is the one YAML writer of
// Stencil's output: lists, configs, anything shown to people. Strings are written plain only
// where every YAML 1.1 and 1.2 reader (kubectl's among them) reads them back as the same
// string; otherwise double-quoted, or as a literal block when they span lines.
//
// data is validated first, as Compact does; Compacted.YAML writes JSON known to be valid.
func ToYAML(data []byte) ([]byte, error) {
	compact, err := compacted(data)
	if err != nil {
		return nil, err
	}
	return compact.YAML()
}

// YAML is ToYAML of JSON known to be valid and compact.
func (c Compacted) YAML() ([]byte, error) {
	if len(c) == 0 {
		return nil, fmt.Errorf("no JSON value")
	}
	w := yamlWriter{src: c, out: make([]byte, 0, len(c)+len(c)/2)} // a List is about 1.3 times as long in YAML
	end := w.value(0, 0, contextTop)
	if end != len(c) {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return w.out, nil
}

// yamlWriter writes YAML from compact, valid JSON.
type yamlWriter struct {
	src, out []byte
}

// yamlContext is where a value is written: it decides what comes before it.
type yamlContext uint8

const (
	contextTop  yamlContext = iota // the document itself
	contextKey                     // after "key:", on the key's line
	contextItem                    // after "- ", on the item's line
)

// value writes the JSON value at src[i] at indentation indent and returns the offset after it.
func (w *yamlWriter) value(i, indent int, cx yamlContext) int {
	switch w.src[i] {
	case '{':
		if w.src[i+1] == '}' {
			w.inline(cx, "{}")
			return i + 2
		}
		return w.mapping(i, indent, cx)
	case '[':
		if w.src[i+1] == ']' {
			w.inline(cx, "[]")
			return i + 2
		}
		return w.sequence(i, indent, cx)
	case '"':
		end := SkipString(w.src, i)
		if cx == contextKey {
			w.out = append(w.out, ' ')
		}
		w.str(StringContent(w.src[i:end]), indent)
		w.out = append(w.out, '\n')
		return end
	}
	end := SkipValue(w.src, i)
	w.inline(cx, "")
	w.out = append(w.out, w.src[i:end]...) // numbers, true, false and null read back the same
	w.out = append(w.out, '\n')
	return end
}

// inline writes the separator a scalar on the current line needs, then text and a newline
// when text is given.
func (w *yamlWriter) inline(cx yamlContext, text string) {
	if cx == contextKey {
		w.out = append(w.out, ' ')
	}
	if text != "" {
		w.out = append(w.out, text...)
		w.out = append(w.out, '\n')
	}
}

// maxImplicitKey is the longest key written before its colon: YAML readers (go-yaml) refuse a
// simple key past 1024 characters; bytes count at least as many.
const maxImplicitKey = 1000

// mapping writes a non-empty object. Inside a sequence item its first member shares the
// item's line; under a key its members go on the following lines, indented.
func (w *yamlWriter) mapping(i, indent int, cx yamlContext) int {
	childIndent := indent
	switch cx {
	case contextKey:
		w.out = append(w.out, '\n')
		childIndent = indent + 2
	case contextItem:
		childIndent = indent + 2
	}
	first := true
	for i++; ; {
		if !(first && cx == contextItem) {
			w.indent(childIndent)
		}
		first = false
		keyEnd := SkipString(w.src, i)
		keyAt := len(w.out)
		w.key(StringContent(w.src[i:keyEnd]))
		if len(w.out)-keyAt > maxImplicitKey {
			// A YAML reader takes a key written before its colon only up to 1024 characters:
			// a longer one is an explicit key, its colon on the next line.
			key := append([]byte(nil), w.out[keyAt:]...)
			w.out = append(append(w.out[:keyAt], '?', ' '), key...)
			w.out = append(w.out, '\n')
			w.indent(childIndent)
		}
		w.out = append(w.out, ':')
		i = w.value(keyEnd+1, childIndent, contextKey)
		if w.src[i] == '}' {
			return i + 1
		}
		i++ // the comma
	}
}

// sequence writes a non-empty array. Under a key its items sit at the key's indentation, as
// kubectl writes them; inside another item the first one shares that item's line.
func (w *yamlWriter) sequence(i, indent int, cx yamlContext) int {
	itemIndent := indent
	switch cx {
	case contextKey:
		w.out = append(w.out, '\n')
	case contextItem:
		itemIndent = indent + 2
	}
	first := true
	for i++; ; {
		if !(first && cx == contextItem) {
			w.indent(itemIndent)
		}
		first = false
		w.out = append(w.out, '-', ' ')
		i = w.value(i, itemIndent, contextItem)
		if w.src[i] == ']' {
			return i + 1
		}
		i++
	}
}

func (w *yamlWriter) indent(n int) {
	for ; n > 0; n-- {
		w.out = append(w.out, ' ')
	}
}

// key writes a member name: plain when that is safe, else double-quoted (a block cannot be a
// key).
func (w *yamlWriter) key(s []byte) {
	if plainSafe(s) {
		w.out = append(w.out, s...)
		return
	}
	w.quoted(s)
}

// str writes the string s: plain when that is safe, as a literal block when it has lines,
// else double-quoted.
func (w *yamlWriter) str(s []byte, indent int) {
	switch {
	case plainSafe(s):
		w.out = append(w.out, s...)
	case literalSafe(s):
		w.literal(s, indent)
	default:
		w.quoted(s)
	}
}

// literal writes s as a "|" block whose lines are indented under the key or item.
func (w *yamlWriter) literal(s []byte, indent int) {
	body := bytes.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		w.out = append(w.out, "|-"...)
	case trailing == 1:
		w.out = append(w.out, '|')
	default:
		w.out = append(w.out, "|+"...)
		body = s[:len(s)-1]
	}
	for _, line := range bytes.Split(body, []byte{'\n'}) {
		w.out = append(w.out, '\n')
		if len(line) > 0 {
			w.indent(indent + 2)
			w.out = append(w.out, line...)
		}
	}
}

// quoted writes s double-quoted, escaping what YAML's double-quoted style needs.
func (w *yamlWriter) quoted(s []byte) {
	w.out = append(w.out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				w.out = append(w.out, '\\', c)
			case c == '\n':
				w.out = append(w.out, '\\', 'n')
			case c == '\t':
				w.out = append(w.out, '\\', 't')
			case c < 0x20 || c == 0x7f:
				w.out = fmt.Appendf(w.out, `\u%04x`, c)
			default:
				w.out = append(w.out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if yamlPrintable(r) {
			w.out = append(w.out, s[i:i+size]...)
		} else if r > 0xffff {
			w.out = fmt.Appendf(w.out, `\U%08x`, r)
		} else {
			w.out = fmt.Appendf(w.out, `\u%04x`, r)
		}
		i += size
	}
	w.out = append(w.out, '"')
}

// yamlPrintable reports whether YAML allows the non-ASCII rune r as it is. NEL (U+0085) is
// printable to YAML but a line break to YAML 1.1 readers, so it is escaped too.
func yamlPrintable(r rune) bool {
	switch {
	case r == utf8.RuneError, r == 0xFEFF, r == 0x2028, r == 0x2029:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// plainSafe reports whether s reads back as the same string when written plain: letters,
// digits and a few punctuation marks, starting with a letter (so never a number, a date or
// an indicator), single spaces inside, and not a word that YAML 1.1 reads as a bool or null.
func plainSafe(s []byte) bool {
	if len(s) == 0 || !isLetter(s[0]) || s[len(s)-1] == ' ' {
		return false
	}
	for i, c := range s {
		switch {
		case isLetter(c), c >= '0' && c <= '9':
		case c == '_' || c == '.' || c == '/' || c == '-' || c == '+' || c == '=' || c == '@' || c == ',' || c == '(' || c == ')':
		case c == ':':
			if i+1 < len(s) && s[i+1] == ' ' {
				return false
			}
		case c == ' ':
			if s[i-1] == ' ' || (i+1 < len(s) && s[i+1] == '#') {
				return false
			}
		default:
			return false
		}
	}
	if len(s) <= len("false") && yaml11Word(s) {
		return false
	}
	// ":" ends a key when it ends the scalar; and "a:1" style is sexagesimal only for digits.
	return s[len(s)-1] != ':'
}

// yaml11Word reports whether s, in any case, is a word that YAML 1.1 reads as a bool or null.
// s is ASCII and at most five bytes long.
func yaml11Word(s []byte) bool {
	var lower [len("false")]byte
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch string(lower[:len(s)]) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// literalSafe reports whether s, which spans lines, can be a literal block: every character
// printable, no line ending in a space or tab, no leading space on the first line (which
// would need an indentation indicator), no leading tab there (YAML readers take it for
// indentation, which must be spaces) and no carriage return.
func literalSafe(s []byte) bool {
	if bytes.IndexByte(s, '\n') < 0 || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			if c == '\n' && i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if !yamlPrintable(r) {
			return false
		}
		i += size
	}
	last := s[len(s)-1]
	return last != ' ' && last != '\t'
}
