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
	"sort"
	"unicode/utf8"
)

// Lines and columns: a byte offset of the file as a Pos, and back.

// PosOf returns the line and column of the byte offset off of the file.
func (x *Index) PosOf(off int) Pos { return x.posOf(off, nil) }

// posOf is PosOf; hint, when not nil, is the line (from 0) of the last offset placed, which
// the next is usually on or just after (a walk through the document), and is set to off's.
func (x *Index) posOf(off int, hint *int) Pos {
	if x == nil || off < 0 || off > len(x.src) {
		return Pos{}
	}
	x.linesOnce.Do(x.indexLines)
	line := -1
	if hint != nil && *hint >= 0 && *hint < len(x.lines) && x.lines[*hint] <= off {
		// A few lines on from the last place, found without a search of every line.
		for i := *hint; i < len(x.lines) && i < *hint+8; i++ {
			if i+1 == len(x.lines) || x.lines[i+1] > off {
				line = i
				break
			}
		}
	}
	if line < 0 {
		line = sort.Search(len(x.lines), func(i int) bool { return x.lines[i] > off }) - 1
	}
	if hint != nil {
		*hint = line
	}
	start := x.lines[line]
	column := 0
	if off-start <= runeBlock {
		column = utf8.RuneCount(x.src[start:off])
	} else {
		// A long line (JSON written on one line): counting from its start at every lookup
		// would make placing every field quadratic in the file.
		x.runesOnce.Do(x.indexRunes)
		column = x.runesBefore(off) - x.runesBefore(start)
	}
	return Pos{Line: line + 1, Column: column + 1, Offset: off}
}

// runeBlock is the stride of the counts of characters kept for long lines.
const runeBlock = 4096

func (x *Index) indexRunes() {
	x.runes = make([]int, 0, len(x.src)/runeBlock+1)
	n := 0
	for i := 0; i < len(x.src); i += runeBlock {
		x.runes = append(x.runes, n)
		n += runeStarts(x.src[i:min(i+runeBlock, len(x.src))])
	}
}

// runesBefore counts the characters of src before off.
func (x *Index) runesBefore(off int) int {
	block := off / runeBlock
	if block >= len(x.runes) {
		block = len(x.runes) - 1
	}
	return x.runes[block] + runeStarts(x.src[block*runeBlock:off])
}

// runeStarts counts the bytes of b that start a UTF-8 character: utf8.RuneCount for text that
// is UTF-8 (a file the reader read), and additive across any split of it.
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// PosOfJSON returns where the byte at offset off of the JSON the file was read into came from
// in the file: for JSON input that byte itself; for YAML the member name, element or document
// written closest before it, which a decoder's error at that offset is about. The zero Pos
// when it is unknown.
func (x *Index) PosOfJSON(off int) Pos {
	if x == nil || off < 0 || off > len(x.json) {
		return Pos{}
	}
	if x.identity {
		return x.PosOf(off)
	}
	i := sort.Search(len(x.entries), func(i int) bool { return int(x.entries[i].json) > off }) - 1
	if x.byPath != nil || i < 0 {
		return Pos{}
	}
	if e := x.entries[i]; e.key >= 0 {
		return x.PosOf(int(e.key))
	}
	return x.PosOf(int(x.entries[i].src))
}

// PosIn returns the line and column of the byte offset off of src: the place of a syntax
// error in a file that could not be read into an Index.
func PosIn(src []byte, off int) Pos {
	return (&Index{src: src}).PosOf(off)
}

func (x *Index) indexLines() {
	// Counted first (a vector scan) so that the starts are written once into their array,
	// not copied as it grows: a file of 10,000 objects has 60,000 lines or more.
	x.lines = make([]int, 1, bytes.Count(x.src, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(x.src[i:], '\n')
		if j < 0 {
			return
		}
		i += j + 1
		x.lines = append(x.lines, i)
	}
}

// offsetOf returns the byte offset of line and column (as Pos counts them), or -1.
func (x *Index) offsetOf(line, column int) int {
	x.linesOnce.Do(x.indexLines)
	if line < 1 || line > len(x.lines) || column < 1 {
		return -1
	}
	off := x.lines[line-1]
	for n := 1; n < column && off < len(x.src) && x.src[off] != '\n'; n++ {
		_, size := utf8.DecodeRune(x.src[off:])
		off += size
	}
	return off
}
