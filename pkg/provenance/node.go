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

package provenance

import (
	"slices"
	"sort"
	"unsafe"

	"stencil.dev/stencil/pkg/positions"
)

// Node is the provenance of one JSON value of an object: a leaf's Field, or the Nodes of its
// members or elements. The engine seeds one tree per object (pkg/process) and the Tracker
// carries it through the steps, so that a field's path is written only once, at the end.
type Node struct {
	// Field is a leaf's provenance; nil for an object or array with members or elements.
	Field *Field
	// Members are an object's, ordered by name: the order the Map lists fields in, and a
	// slice where a map per object cost two allocations and a hash per member.
	Members []Member
	// Elements are an array's, in order.
	Elements []*Node
	// Removed are the members or elements of this object or array that steps removed.
	Removed []Removal
}

// Member is one member of an object's Node.
type Member struct {
	Name string
	Node *Node
}

// Member returns the Node of the member name, or nil.
func (n *Node) Member(name string) *Node {
	if n == nil {
		return nil
	}
	ms := n.Members
	if len(ms) <= 8 {
		for i := range ms {
			if ms[i].Name == name {
				return ms[i].Node
			}
		}
		return nil
	}
	i := sort.Search(len(ms), func(i int) bool { return ms[i].Name >= name })
	if i < len(ms) && ms[i].Name == name {
		return ms[i].Node
	}
	return nil
}

// Add appends the member name of Node m to an object's Node (made by Alloc.Object with room
// for it); nothing on nil, a flat trace's (pkg/process).
func (n *Node) Add(name string, m *Node) {
	if n != nil {
		n.Members = append(n.Members, Member{Name: name, Node: m})
	}
}

// Set sets the element i of an array's Node; nothing on nil.
func (n *Node) Set(i int, e *Node) {
	if n != nil {
		n.Elements[i] = e
	}
}

// Removal is a member or element of an object or array that a step removed: its name, or its
// index before the step.
type Removal struct {
	At   positions.Step
	Step int32
}

// Leaf returns a Node of one leaf field.
func Leaf(source Source, parameters []string) *Node {
	// One allocation for the two: an output has as many leaves as fields.
	l := &leaf{field: Field{Source: source, Parameters: parameters}}
	l.node.Field = &l.field
	return &l.node
}

type leaf struct {
	node  Node
	field Field
}

// Alloc makes the Nodes and strings of one request in blocks. A map describes up to
// DefaultMaxFields leaves, each with a Node, a Field and two paths: made one by one, they were
// most of provenance's allocations and of the collector's work. A block lives as long as any
// of its Nodes or strings, and a request's blocks never outgrow its leaves by more than one
// block of each kind; an Alloc is used by one goroutine.
type Alloc struct {
	fields  []Field
	leaves  []leaf
	nodes   []Node
	members []Member
	text    []byte
	scratch []byte
}

// Sizes of the blocks: large enough that their allocations vanish beside the values they
// hold, small enough that a small template does not pay for them.
const (
	fieldBlock  = 512
	leafBlock   = 256
	nodeBlock   = 256
	memberBlock = 1024
	textBlock   = 32 << 10
)

// Leaf returns a Node of one leaf field, as the function Leaf does.
func (a *Alloc) Leaf(source Source, parameters []string) *Node {
	if len(a.leaves) == cap(a.leaves) {
		a.leaves = make([]leaf, 0, leafBlock)
	}
	a.leaves = append(a.leaves, leaf{field: Field{Source: source, Parameters: parameters}})
	l := &a.leaves[len(a.leaves)-1]
	l.node.Field = &l.field
	return &l.node
}

// Fields returns a copy of fs in a block: the fields of one object of a flat trace, written
// in a scratch slice that grew as the walk went, kept at their size.
func (a *Alloc) Fields(fs []Field) []Field {
	if len(fs) > fieldBlock/4 {
		return append([]Field(nil), fs...)
	}
	if cap(a.fields)-len(a.fields) < len(fs) {
		a.fields = make([]Field, 0, fieldBlock)
	}
	start := len(a.fields)
	a.fields = append(a.fields, fs...)
	return a.fields[start:len(a.fields):len(a.fields)]
}

// Object returns the Node of an object of n members, with room for them in Members.
func (a *Alloc) Object(n int) *Node {
	node := a.node()
	node.Members = a.Members(n)
	return node
}

// Members returns an empty slice with room for n members, whose appends stay in it.
func (a *Alloc) Members(n int) []Member {
	if n > memberBlock/4 {
		return make([]Member, 0, n)
	}
	if cap(a.members)-len(a.members) < n {
		a.members = make([]Member, 0, memberBlock)
	}
	start := len(a.members)
	a.members = a.members[:start+n]
	return a.members[start : start : start+n]
}

// Array returns the Node of an array of n elements.
func (a *Alloc) Array(n int) *Node {
	node := a.node()
	node.Elements = make([]*Node, n)
	return node
}

func (a *Alloc) node() *Node {
	if len(a.nodes) == cap(a.nodes) {
		a.nodes = make([]Node, 0, nodeBlock)
	}
	a.nodes = append(a.nodes, Node{})
	return &a.nodes[len(a.nodes)-1]
}

// String returns b as a string kept in a block: its bytes are written once, never again.
func (a *Alloc) String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > textBlock/4 {
		return string(b)
	}
	if cap(a.text)-len(a.text) < len(b) {
		a.text = make([]byte, 0, textBlock)
	}
	start := len(a.text)
	a.text = append(a.text, b...)
	return unsafe.String(&a.text[start], len(b))
}

// Path returns p written as a string (positions.Path.String), kept in a block.
func (a *Alloc) Path(p positions.Path) string {
	a.scratch = p.AppendString(a.scratch[:0])
	return a.String(a.scratch)
}

// SortNames sorts the member names of one object: by insertion for the few members of most
// objects, where sort.Strings's generic machinery costs more than the comparisons.
func SortNames(names []string) {
	if len(names) > 12 {
		slices.Sort(names)
		return
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
}
