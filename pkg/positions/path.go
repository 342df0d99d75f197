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
	"fmt"
	"strconv"
	"strings"
)

// Step is one step of a Path: a member of an object (Key) or an element of an array (Index).
// A step written [n] is both until the JSON says which: Key holds n as text and IsIndex is
// set, and a lookup into an object reads it as the member named n.
type Step struct {
	Key     string
	Index   int
	IsIndex bool
}

// Path is a field path into a JSON document, as Kubernetes writes them in errors
// (k8s.io/apimachinery's field.Path): objects[2].spec.replicas, metadata.labels[app/name].
type Path []Step

// Child returns p extended by the member name.
func (p Path) Child(name string) Path {
	return append(p[:len(p):len(p)], Step{Key: name})
}

// Elem returns p extended by the array index i.
func (p Path) Elem(i int) Path {
	return append(p[:len(p):len(p)], Step{Index: i, IsIndex: true, Key: strconv.Itoa(i)})
}

// String writes p as field.Path does: a member whose name is made of letters, digits, '-'
// and '_' as .name, any other as [name], an index as [i].
func (p Path) String() string {
	size := 0
	for _, s := range p {
		size += len(s.Key) + 2
		if s.IsIndex {
			size += 20
		}
	}
	return string(p.AppendString(make([]byte, 0, size)))
}

// AppendString appends p, as String writes it, to dst, which must be empty or hold a path
// that p continues.
func (p Path) AppendString(dst []byte) []byte {
	for _, s := range p {
		dst = AppendStep(dst, s)
	}
	return dst
}

// AppendStep appends one step to the path written in dst (empty for none), as String writes
// it: for a caller that writes the paths of a walk without making a Path of each.
func AppendStep(dst []byte, s Step) []byte {
	switch {
	case s.IsIndex:
		dst = append(dst, '[')
		dst = strconv.AppendInt(dst, int64(s.Index), 10)
		return append(dst, ']')
	case plainName(s.Key):
		if len(dst) > 0 {
			dst = append(dst, '.')
		}
		return append(dst, s.Key...)
	}
	dst = append(dst, '[')
	dst = append(dst, s.Key...)
	return append(dst, ']')
}

// stringEnds returns p.String() and where in it each prefix of p ends: p[:n].String() is
// s[:ends[n]].
func (p Path) stringEnds() (string, []int) {
	var b []byte
	ends := make([]int, 1, len(p)+1)
	for _, s := range p {
		b = AppendStep(b, s)
		ends = append(ends, len(b))
	}
	return string(b), ends
}

// Pointer writes p as a JSON pointer (RFC 6901), as SARIF and JSON Schema tools name places.
func (p Path) Pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.IsIndex {
			b.WriteString(strconv.Itoa(s.Index))
			continue
		}
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s.Key))
	}
	return b.String()
}

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ParsePath reads a field path written as String writes it (objects[2].spec.replicas,
// metadata.labels[app.kubernetes.io/name]) or as a JSON pointer (/objects/2/spec/replicas).
// A member name with dots written after a dot (metadata.labels.app.kubernetes.io/name) is
// read as several steps; Lookup joins them again when the document has no such member.
func ParsePath(s string) (Path, error) {
	return AppendPath(nil, s)
}

// AppendPath is ParsePath appending the steps to dst: a caller that reads many paths reuses
// one Path.
func AppendPath(dst Path, s string) (Path, error) {
	if strings.HasPrefix(s, "/") {
		return appendPointer(dst, s), nil
	}
	p := dst
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			if i == 0 || i == len(s)-1 || s[i+1] == '.' || s[i+1] == '[' {
				return nil, fmt.Errorf("field path %q: a '.' must be followed by a member name", s)
			}
			i++
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("field path %q: '[' at %d is not closed", s, i)
			}
			text := s[i+1 : i+end]
			if n, ok := indexText(text); ok {
				p = append(p, Step{Key: text, Index: n, IsIndex: true})
			} else {
				p = append(p, Step{Key: text})
			}
			i += end + 1
			if i < len(s) && s[i] != '.' && s[i] != '[' {
				return nil, fmt.Errorf("field path %q: expected '.' or '[' after ']' at %d", s, i-1)
			}
			continue
		}
		end := i
		for end < len(s) && s[end] != '.' && s[end] != '[' {
			end++
		}
		if end > i {
			p = append(p, Step{Key: s[i:end]})
		}
		i = end
	}
	return p, nil
}

func appendPointer(p Path, s string) Path {
	for _, part := range strings.Split(s[1:], "/") {
		key := strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		if n, ok := indexText(key); ok {
			p = append(p, Step{Key: key, Index: n, IsIndex: true})
			continue
		}
		p = append(p, Step{Key: key})
	}
	return p
}

// indexText reads an array index written as strconv.Itoa writes it (no sign, no leading zero).
func indexText(text string) (int, bool) {
	if text == "" || text[0] < '0' || text[0] > '9' || len(text) > 1 && text[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}
