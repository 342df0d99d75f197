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
	"sort"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// What the fast reader leaves: sigs.k8s.io/yaml converts it (so the JSON is exact, whatever
// it is), and go.yaml.in/yaml/v3's node tree, which keeps the line and column of every node,
// gives its places by field path. v3 reads a few documents v2 reads differently (it is YAML
// 1.2); their places are then those of the closest path it has, or none.

func fallback(data []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("cannot read the YAML: %v", r)
		}
	}()
	if err := checkFallbackExpansion(data); err != nil {
		return nil, err
	}
	return yaml.YAMLToJSON(data)
}

// fallbackPositions returns the places of the fields of the first document of data[start:]
// by path (none when v3 cannot read it).
func fallbackPositions(data []byte, start int) (byPath map[string]Span) {
	defer func() {
		if recover() != nil {
			byPath = map[string]Span{}
		}
	}()
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data[start:], &doc); err != nil || len(doc.Content) == 0 {
		return map[string]Span{}
	}
	lines := lineStarts(data)
	f := fallbackWalker{out: map[string]Span{}, lines: lines, src: data, firstLine: sort.SearchInts(lines, start+1) - 1}
	f.node(doc.Content[0], nil, Pos{}, 0)
	return f.out
}

type fallbackWalker struct {
	out   map[string]Span
	lines []int
	src   []byte
	seen  int
	// firstLine is the 0-based line of data where the document starts.
	firstLine int
}

// node records n at path p (keyed at key) and below, first place wins (a merged field is
// recorded where the mapping that wins it writes it, or else where the merge does).
func (f *fallbackWalker) node(n *yamlv3.Node, p Path, key Pos, depth int) {
	if f.seen++; depth > maxDepth || f.seen > 1<<20 {
		return
	}
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		at := f.pos(n)
		f.node(n.Alias, p, key, depth+1)
		if s, ok := f.out[p.String()]; ok {
			s.Value = at
			f.out[p.String()] = s
		}
		return
	}
	path := p.String()
	if _, ok := f.out[path]; !ok {
		f.out[path] = Span{Key: key, Value: f.pos(n)}
	}
	switch n.Kind {
	case yamlv3.SequenceNode:
		for i, c := range n.Content {
			f.node(c, p.Elem(i), Pos{}, depth+1)
		}
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yamlv3.ScalarNode && k.Value == "<<" && k.Style == 0 {
				f.mergeInto(v, p, depth+1)
				continue
			}
			f.node(v, p.Child(fallbackKey(k)), f.pos(k), depth+1)
		}
	}
}

func (f *fallbackWalker) mergeInto(v *yamlv3.Node, p Path, depth int) {
	for v.Kind == yamlv3.AliasNode && v.Alias != nil && depth < maxDepth {
		v, depth = v.Alias, depth+1
	}
	switch v.Kind {
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			f.node(v.Content[i+1], p.Child(fallbackKey(v.Content[i])), f.pos(v.Content[i]), depth+1)
		}
	case yamlv3.SequenceNode:
		for _, c := range v.Content {
			f.mergeInto(c, p, depth+1)
		}
	}
}

// fallbackKey writes a key as YAMLToJSON does, as far as the fast reader's rules know it.
func fallbackKey(k *yamlv3.Node) string {
	if k.Kind != yamlv3.ScalarNode {
		return k.Value
	}
	if k.Style != 0 || k.Tag == "!!str" {
		return k.Value
	}
	var key string
	func() {
		defer func() { _ = recover() }()
		text, _ := resolveKey([]byte(k.Value))
		key = string(text)
	}()
	if key == "" {
		return k.Value
	}
	return key
}

func (f *fallbackWalker) pos(n *yamlv3.Node) Pos {
	line := n.Line + f.firstLine
	if n.Line < 1 || line > len(f.lines) {
		return Pos{}
	}
	off := f.lines[line-1]
	for c := 1; c < n.Column && off < len(f.src) && f.src[off] != '\n'; c++ {
		off++
		for off < len(f.src) && f.src[off]&0xC0 == 0x80 {
			off++
		}
	}
	return Pos{Line: line, Column: n.Column, Offset: off}
}

func lineStarts(src []byte) []int {
	lines := []int{0}
	for i, c := range src {
		if c == '\n' {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// walkByPath walks the places the fallback recorded under prefix, in path order.
func walkByPath(byPath map[string]Span, prefix Path, fn func(Path, Span) bool) {
	want := prefix.String()
	var paths []string
	for p := range byPath {
		if p == want || want == "" || len(p) > len(want) && p[:len(want)] == want && (p[len(want)] == '.' || p[len(want)] == '[') {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, s := range paths {
		p, err := ParsePath(s)
		if err != nil {
			continue
		}
		if !fn(p, byPath[s]) {
			return
		}
	}
}
