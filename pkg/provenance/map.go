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
	"errors"
	"sort"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/redact"
)

// Locator finds where a template field was written; *positions.Index is one. A nil Locator
// knows no place.
type Locator interface {
	NearestStart(p positions.Path) (positions.Pos, int)
	File() string
}

// Locate fills in the file, line and column of a source's template path from x: where the
// field was written, or for a field the file does not have (the config of a Template that
// transformersFrom imported), where its closest ancestor was (the import).
func Locate(s Source, x Locator) Source {
	l := locator{x: x}
	return l.locate(s)
}

// locator locates the sources of one map, reading each path into the same buffer.
type locator struct {
	x    Locator
	path positions.Path
}

func (l *locator) locate(s Source) Source {
	if l.x == nil || s.Path == "" || s.Kind == RequestLabels {
		return s
	}
	p, err := positions.AppendPath(l.path[:0], s.Path)
	if err != nil {
		return s
	}
	l.path = p
	if pos, n := l.x.NearestStart(p); n > 0 {
		s.File, s.Line, s.Column = l.x.File(), int32(pos.Line), int32(pos.Column)
	}
	return s
}

// Map returns the provenance of the objects as they are now, which must be the list the
// last step returned (nil for a Tracker of undecoded objects), with the places of template
// fields read from x (nil for none).
func (t *Tracker) Map(objects []map[string]any, x Locator) (*Map, error) {
	if t.err != nil {
		return nil, t.err
	}
	if t.undecoded && objects != nil {
		return nil, errUndecoded
	}
	if !t.undecoded {
		t.align(objects)
	}
	m := &Map{Objects: make([]Object, len(t.objects)), Steps: make([]StepInfo, len(t.steps))}
	// Each template field's place is looked up where it is used: a lookup takes a step per
	// step of its path (positions' tree), cheaper than remembering the places by source.
	// The fields of all objects share one array, made for the leaves the tracker counted.
	capacity := t.fields
	if t.undecoded {
		// A flat trace wrote the fields already (ObjectSeed.Fields).
		capacity = 0
	}
	c := collector{t: t, locator: locator{x: x}, fields: make([]Field, 0, capacity)}
	for i, s := range t.steps {
		if s.Source != nil {
			located := c.place(*s.Source)
			s.Source = &located
		}
		m.Steps[i] = s
	}
	for i := range t.objects {
		tr := &t.objects[i]
		id := tr.id
		if !t.undecoded {
			id = idOf(tr.obj)
		}
		o := Object{APIVersion: id.APIVersion, Kind: id.Kind, Namespace: t.mask(id.Namespace), Name: t.mask(id.Name),
			Source: c.place(tr.source), Element: tr.element, Steps: tr.steps}
		start := len(c.fields)
		c.removed = nil
		switch {
		case t.undecoded && tr.root == nil:
			// A flat trace wrote the fields: they are placed here, where a trace did not.
			for j := range tr.fields {
				tr.fields[j].Source = c.place(tr.fields[j].Source)
			}
			o.Fields = tr.fields
			m.Objects[i] = o
			continue
		case t.undecoded:
			c.collectNode(tr.root, c.path[:0])
		default:
			c.collect(tr.obj, tr.root, c.path[:0])
		}
		o.Fields = c.fields[start:len(c.fields):len(c.fields)]
		if len(c.removed) > 0 {
			sort.SliceStable(c.removed, func(a, b int) bool { return c.removed[a].Path < c.removed[b].Path })
			o.Removed = c.removed
		}
		m.Objects[i] = o
	}
	return m, nil
}

// errUndecoded is the error of a Map asked of objects a Tracker of undecoded objects never saw.
var errUndecoded = errors.New("provenance: the tracker's objects were not decoded")

// place is locate for a source of the map: one the trace placed as it walked (pkg/process,
// Plan.Trace) in the same file has its Line already.
func (c *collector) place(s Source) Source {
	if s.Line > 0 {
		return s
	}
	return c.locate(s)
}

// collector writes the fields of the objects of a map.
type collector struct {
	t *Tracker
	locator
	fields  []Field
	removed []RemovedField
	// path is the output path of the value collect is at, written as field.Path writes it;
	// keys is the scratch of the member names of maps, sorted.
	path []byte
	keys []string
}

// collect appends the fields of value v, whose Node is node, at the output path written in
// path.
func (c *collector) collect(v any, node *Node, path []byte) {
	if node != nil && len(node.Removed) > 0 {
		c.removals(v, node, path)
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			if c.sameMembers(x, node) {
				// The Node has the object's members, in order: the usual case, where no step
				// added or removed one since the Node was made.
				for _, m := range node.Members {
					c.collect(x[m.Name], m.Node, positions.AppendStep(path, positions.Step{Key: c.t.mask(m.Name)}))
				}
				return
			}
			start := len(c.keys)
			for k := range x {
				c.keys = append(c.keys, k)
			}
			keys := c.keys[start:]
			SortNames(keys)
			for _, k := range keys {
				c.collect(x[k], node.Member(k), positions.AppendStep(path, positions.Step{Key: c.t.mask(k)}))
			}
			c.keys = c.keys[:start]
			return
		}
	case []any:
		if len(x) > 0 {
			for i, e := range x {
				var child *Node
				if node != nil && i < len(node.Elements) {
					child = node.Elements[i]
				}
				c.collect(e, child, positions.AppendStep(path, positions.Step{Index: i, IsIndex: true}))
			}
			return
		}
	}
	f := Field{Source: Source{Kind: Engine}}
	if node != nil && node.Field != nil {
		f = *node.Field
		f.Source = c.place(f.Source)
	}
	f.Path = c.t.alloc.String(path)
	c.fields = append(c.fields, f)
	// The buffer is kept for the next object: its paths are written over it.
	c.path = path[:0]
}

// collectNode appends the fields of the value whose Node is node, at the output path written
// in path, for an object no step changed: the trace made its Nodes from the object itself, so
// they have its structure (a leaf Field, an object's members in order, an array's elements).
func (c *collector) collectNode(node *Node, path []byte) {
	switch {
	case node == nil:
		// The trace stopped at the bound of fields (ErrTooManyFields): unreachable here.
		c.fields = append(c.fields, Field{Path: c.t.alloc.String(path), Source: Source{Kind: Engine}})
	case node.Field != nil:
		f := *node.Field
		f.Source = c.place(f.Source)
		f.Path = c.t.alloc.String(path)
		c.fields = append(c.fields, f)
	case node.Elements != nil:
		for i, e := range node.Elements {
			c.collectNode(e, positions.AppendStep(path, positions.Step{Index: i, IsIndex: true}))
		}
	default:
		for _, m := range node.Members {
			c.collectNode(m.Node, positions.AppendStep(path, positions.Step{Key: c.t.mask(m.Name)}))
		}
	}
	// The buffer is kept for the next object: its paths are written over it.
	c.path = path[:0]
}

// sameMembers says node has exactly the members of x.
func (c *collector) sameMembers(x map[string]any, node *Node) bool {
	if node == nil || len(node.Members) != len(x) {
		return false
	}
	for _, m := range node.Members {
		if _, ok := x[m.Name]; !ok {
			return false
		}
	}
	return true
}

// removals adds the removed members and elements of node, the Node of v at path, that v does
// not have again (a later step may add a member back).
func (c *collector) removals(v any, node *Node, path []byte) {
	members, _ := v.(map[string]any)
	for _, r := range node.Removed {
		at := r.At
		if !at.IsIndex {
			if _, back := members[at.Key]; back {
				continue
			}
			at.Key = c.t.mask(at.Key)
		}
		c.removed = append(c.removed, RemovedField{Path: string(positions.AppendStep(path, at)), Step: r.Step})
	}
}

// mask returns s, or redact.Masked when it holds the value of a secret parameter.
func (t *Tracker) mask(s string) string {
	if t.secrets.Holds(s) {
		return redact.Masked
	}
	return s
}

// Fork returns a Tracker of copies of the objects (jsonbytes.CopyObjects of the list the
// last step returned), sharing nothing with t, for steps that run once per destination.
func (t *Tracker) Fork(objects, copies []map[string]any) *Tracker {
	t.align(objects)
	f := &Tracker{steps: append([]StepInfo(nil), t.steps...), max: t.max, fields: t.fields, err: t.err, secrets: t.secrets,
		objects: make([]tracked, len(copies))}
	for i := range copies {
		if i < len(t.objects) {
			tr := t.objects[i]
			f.objects[i] = tracked{obj: copies[i], root: copyNode(tr.root), source: tr.source, element: tr.element, steps: tr.steps}
		} else {
			f.objects[i] = tracked{obj: copies[i], source: Source{Kind: Engine}}
		}
	}
	return f
}

// Fields counts the leaf fields made so far, for the bound shared by forks.
func (t *Tracker) Fields() int { return t.fields }

// AddFields counts n more leaf fields (a fork's), and returns Err.
func (t *Tracker) AddFields(n int) error {
	t.fields += n
	if t.fields > t.max && t.err == nil {
		t.err = ErrTooManyFields
	}
	return t.err
}

func copyNode(n *Node) *Node {
	if n == nil {
		return nil
	}
	c := &Node{}
	if n.Field != nil {
		f := *n.Field
		f.Steps = append([]int32(nil), f.Steps...)
		c.Field = &f
	}
	if n.Members != nil {
		c.Members = make([]Member, len(n.Members))
		for i, m := range n.Members {
			c.Members[i] = Member{Name: m.Name, Node: copyNode(m.Node)}
		}
	}
	if n.Elements != nil {
		c.Elements = make([]*Node, len(n.Elements))
		for i, e := range n.Elements {
			c.Elements[i] = copyNode(e)
		}
	}
	c.Removed = append([]Removal(nil), n.Removed...)
	return c
}

// Append adds the objects of a fork's map (a destination's) to m. base is how many steps the
// fork shared with its parent when it was made (Steps of the parent's map): only the fork's own
// steps are added, and its fields' indices moved to them.
func Append(m, fork *Map, base int) {
	offset := int32(len(m.Steps) - base)
	m.Steps = append(m.Steps, fork.Steps[min(base, len(fork.Steps)):]...)
	shift := func(steps []int32) []int32 {
		if len(steps) == 0 || offset == 0 {
			return steps
		}
		out := make([]int32, len(steps))
		for i, s := range steps {
			out[i] = s
			if s >= int32(base) {
				out[i] = s + offset
			}
		}
		return out
	}
	for _, o := range fork.Objects {
		o.Steps = shift(o.Steps)
		for i := range o.Fields {
			o.Fields[i].Steps = shift(o.Fields[i].Steps)
		}
		for i := range o.Removed {
			o.Removed[i].Step = shift([]int32{o.Removed[i].Step})[0]
		}
		m.Objects = append(m.Objects, o)
	}
}

// StepCount is how many steps ran so far, the base of a Fork made now.
func (t *Tracker) StepCount() int { return len(t.steps) }
