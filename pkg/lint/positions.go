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

package lint

import (
	"strconv"
	"strings"
)

// Position is a place in a file: line and column, both from 1; zero when unknown.
type Position struct {
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// Known reports whether the position is a place.
func (p Position) Known() bool { return p.Line > 0 }

// Positions locates the fields of a template in its file by their field paths, as the
// server's errors write them (objects[2].spec.replicas, metadata.labels[app]). It is the one
// place where lint meets the file reader: the reader that keeps positions as it reads
// (issue 27) plugs in here.
type Positions interface {
	// Position returns where the field at path is written: a member's name, an array
	// element's value. ok is false when the file has no such field.
	Position(path string) (pos Position, ok bool)
}

// Locate returns the position of path, or of its nearest parent the file has (a required
// field left out is reported where its object is); the zero Position when positions is nil
// or knows none of them.
func Locate(positions Positions, path string) Position {
	if positions == nil {
		return Position{}
	}
	segments := SplitPath(path)
	for n := len(segments); n > 0; n-- {
		if pos, ok := positions.Position(JoinPath(segments[:n])); ok {
			return pos
		}
	}
	return Position{}
}

// SplitPath cuts a field path into its names, indexes and keys: "a.b[0][k]" is a, b, 0, k.
// Indexes and keys are both written in brackets by field.Path; a member name reached as a key
// (labels[app]) and as a child (labels.app) is the same segment.
func SplitPath(path string) []string {
	var out []string
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			end := strings.IndexByte(path[i:], ']')
			if end < 0 {
				out = append(out, path[i+1:])
				return out
			}
			out = append(out, path[i+1:i+end])
			i += end + 1
		default:
			end := strings.IndexAny(path[i:], ".[")
			if end < 0 {
				out = append(out, path[i:])
				return out
			}
			out = append(out, path[i:i+end])
			i += end
		}
	}
	return out
}

// JoinPath writes segments as one key of a positions index: names joined by dots, indexes in
// brackets, so that a key (labels[app]) and a child (labels.app) find the same entry.
func JoinPath(segments []string) string {
	var b strings.Builder
	for i, s := range segments {
		if _, err := strconv.Atoi(s); err == nil && i > 0 {
			b.WriteString("[" + s + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}
