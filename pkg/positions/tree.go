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
	"math"
	"sort"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// tree is the structure of an Index's JSON, read in one pass on the first lookup: the offsets
// of every value and member name, and each object's members and each array's elements in
// order. A lookup then takes one step per step of its path (an element by its number, a
// member by a search among its siblings) instead of scanning the document from its start,
// so that placing every field of a file (provenance, lint) is linear in the file, not
// quadratic.
type tree struct {
	data  []byte
	nodes []jsonNode
	// kids are the children of each container, contiguous per container, in document order.
	kids []int32
	// byName are the members of the wide objects whose names are not in order already,
	// ordered by name (stably, so that the last of a repeated name is the one found).
	byName []int32
}

// jsonNode is one value of the JSON.
type jsonNode struct {
	// key and value are the offsets of its member name (-1 for an element or the document)
	// and of its value; keyEnd is the offset after the member name.
	key, keyEnd, value int32
	// first and count place its children in kids.
	first, count int32
	// order says how a member is found among its children: unordered (a search from the
	// last), kidsInOrder (a binary search of kids), or else the start of its members in
	// byName.
	order int32
}

const (
	unordered   = -1
	kidsInOrder = -2
	// wideObject is the number of members past which an object's names are ordered for a
	// binary search: below it, comparing each name is as quick.
	wideObject = 8
)

// buildTree reads the structure of data, or returns nil when data is not JSON (a lookup then
// finds nothing, as ReadJSON promises); values is how many values it likely holds (0 for
// unknown).
func buildTree(data []byte, values int) *tree {
	if len(data) >= math.MaxInt32 {
		return nil
	}
	b := treeBuilder{t: &tree{data: data, nodes: make([]jsonNode, 0, values), kids: make([]int32, 0, values)},
		pending: make([]int32, 0, values)}
	if !b.run() {
		return nil
	}
	return b.t
}

type treeBuilder struct {
	t *tree
	// open are the containers being read, pending the children read so far of each.
	open    []openContainer
	pending []int32
	names   [][]byte
}

type openContainer struct {
	node    int32
	pending int
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// run reads the JSON value that data must be, in one pass without recursion (a document may
// nest as deep as its reader allows).
func (b *treeBuilder) run() bool {
	data := b.t.data
	i, key, keyEnd := skipSpace(data, 0), -1, -1
	for {
		// i is at a value whose member name is data[key:keyEnd].
		if i >= len(data) {
			return false
		}
		n := b.add(key, keyEnd, i)
		switch c := data[i]; c {
		case '{', '[':
			b.open = append(b.open, openContainer{node: n, pending: len(b.pending)})
			i = skipSpace(data, i+1)
			if i >= len(data) || data[i] != closer(c) {
				key = -1
				if c == '{' {
					if i, key, keyEnd = memberName(data, i); i < 0 {
						return false
					}
				}
				continue
			}
			// An empty container: i is at its end, which the loop below reads.
		case '"':
			if i = stringEnd(data, i); i < 0 {
				return false
			}
		default:
			if i = scalarEnd(data, i); i < 0 {
				return false
			}
		}
		// i is after a value: close the containers that end here, then go to the next member
		// or element.
		for {
			i = skipSpace(data, i)
			if len(b.open) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			top := b.open[len(b.open)-1]
			c := data[b.t.nodes[top.node].value]
			if data[i] == closer(c) {
				b.close(top, c == '{')
				i++
				continue
			}
			if data[i] != ',' {
				return false
			}
			i, key = skipSpace(data, i+1), -1
			if c == '{' {
				if i, key, keyEnd = memberName(data, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// scalarEnd returns the offset after the number or literal at data[i], or -1 for a byte no
// number or literal has (a quote or a bracket, which would end or open a value).
func scalarEnd(data []byte, i int) int {
	end := valueEnd(data, i)
	if end < 0 {
		return -1
	}
	for _, c := range data[i:end] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
			return -1
		}
	}
	return end
}

// memberName reads the member name at data[i] and its colon: the offsets of its value, of
// the name and after the name, or -1.
func memberName(data []byte, i int) (value, key, keyEnd int) {
	end := stringEnd(data, i)
	if end < 0 {
		return -1, -1, -1
	}
	j := skipSpace(data, end)
	if j >= len(data) || data[j] != ':' {
		return -1, -1, -1
	}
	return skipSpace(data, j+1), i, end
}

func (b *treeBuilder) add(key, keyEnd, value int) int32 {
	n := int32(len(b.t.nodes))
	b.t.nodes = append(b.t.nodes, jsonNode{key: int32(key), keyEnd: int32(keyEnd), value: int32(value), order: unordered})
	if len(b.open) > 0 {
		b.pending = append(b.pending, n)
	}
	return n
}

// close ends the container on top: its children move from pending to kids.
func (b *treeBuilder) close(top openContainer, object bool) {
	t := b.t
	children := b.pending[top.pending:]
	nd := &t.nodes[top.node]
	nd.first, nd.count = int32(len(t.kids)), int32(len(children))
	t.kids = append(t.kids, children...)
	b.pending = b.pending[:top.pending]
	b.open = b.open[:len(b.open)-1]
	if object && len(children) > wideObject {
		b.orderNames(top.node)
	}
}

// orderNames lets the members of the object n be found by a binary search.
func (b *treeBuilder) orderNames(n int32) {
	t := b.t
	kids := t.children(n)
	b.names = b.names[:0]
	inOrder := true
	for j, k := range kids {
		b.names = append(b.names, t.name(k))
		inOrder = inOrder && (j == 0 || bytes.Compare(b.names[j-1], b.names[j]) <= 0)
	}
	if inOrder {
		// The YAML reader writes members ordered by name, as sigs.k8s.io/yaml does.
		t.nodes[n].order = kidsInOrder
		return
	}
	order := make([]int, len(kids))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, c int) bool { return bytes.Compare(b.names[order[a]], b.names[order[c]]) < 0 })
	t.nodes[n].order = int32(len(t.byName))
	for _, j := range order {
		t.byName = append(t.byName, kids[j])
	}
}

func (t *tree) children(n int32) []int32 {
	nd := &t.nodes[n]
	return t.kids[nd.first : nd.first+nd.count]
}

// name returns the member name of the node n, decoded.
func (t *tree) name(n int32) []byte {
	nd := &t.nodes[n]
	return jsonbytes.StringContent(t.data[nd.key:nd.keyEnd])
}

// named reports whether the member name of the node n is name, decoding it only when its
// bytes hold an escape (what a name decodes to is never longer than its bytes).
func (t *tree) named(n int32, name string) bool {
	nd := &t.nodes[n]
	raw := t.data[nd.key+1 : nd.keyEnd-1]
	if len(raw) < len(name) {
		return false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	return string(t.name(n)) == name
}

// kind is the first byte of the value of n: '{' for an object, '[' for an array.
func (t *tree) kind(n int32) byte { return t.data[t.nodes[n].value] }

// member finds the last member named name of the object n.
func (t *tree) member(n int32, name string) (int32, bool) {
	kids := t.children(n)
	ordered := kids
	switch order := t.nodes[n].order; {
	case order == unordered:
		for j := len(kids) - 1; j >= 0; j-- {
			if t.named(kids[j], name) {
				return kids[j], true
			}
		}
		return 0, false
	case order >= 0:
		ordered = t.byName[order : int(order)+len(kids)]
	}
	// The last of equal names is just before the first name past it.
	j := sort.Search(len(ordered), func(j int) bool { return string(t.name(ordered[j])) > name })
	if j > 0 && string(t.name(ordered[j-1])) == name {
		return ordered[j-1], true
	}
	return 0, false
}

// element finds the element at index of the array n.
func (t *tree) element(n int32, index int) (int32, bool) {
	kids := t.children(n)
	if index < 0 || index >= len(kids) {
		return 0, false
	}
	return kids[index], true
}
