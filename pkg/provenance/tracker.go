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
	"strconv"
	"unsafe"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/redact"
)

// ObjectSeed is an object as the engine wrote it and the provenance of its fields.
type ObjectSeed struct {
	// Root is the Node of the object itself.
	Root *Node
	// Source is the template object (objects[i]).
	Source Source
	// Element is the element of a for-each object, nil for others.
	Element *int32
	// ID is the object's apiVersion, kind, namespace and name, for a Tracker of objects
	// that are not decoded (NewTracker).
	ID ObjectID
	// Fields, for an object no step changes, are its fields as the Map lists them (a flat
	// trace), in place of Root.
	Fields []Field
}

// ObjectID identifies an object in the list.
type ObjectID struct{ APIVersion, Kind, Namespace, Name string }

// Tracker records, step by step, which leaf fields each step set or changed. It implements
// the pipeline's StepTracer (pkg/transform): Before snapshots the objects, After diffs them
// against the snapshot. It is used by one request, never concurrently.
type Tracker struct {
	steps   []StepInfo
	objects []tracked
	// before is a deep copy of the objects as the running step got them; beforeAt finds an
	// object's place in it by its map.
	before   []map[string]any
	beforeAt map[unsafe.Pointer]int
	// fields counts the leaf Nodes made; max bounds them.
	fields, max int
	// undecoded says the objects are not decoded: no step runs over them (NewTracker).
	undecoded bool
	err       error
	secrets   *redact.Set
	// alloc makes the Nodes of the steps' changes; keys is the scratch of sorted member
	// names and members of new Members, stacks that diff pushes onto and pops.
	alloc   Alloc
	keys    []string
	members []Member
}

type tracked struct {
	obj     map[string]any
	id      ObjectID
	fields  []Field
	root    *Node
	source  Source
	element *int32
	steps   []int32
}

// NewTracker returns a Tracker of the objects the engine wrote, whose trees are seeds (one
// per object, in order) holding fields leaf fields; it refuses (Err) to describe more than
// max leaf fields in all (DefaultMaxFields when max <= 0).
//
// objects nil is a Tracker of the seeds' objects as the engine wrote them, not decoded, over
// which no step runs: its Map (with nil objects) is read from the seeds alone, which have
// the objects' structure and identity. A request without steps after the engine pays no
// decoding for its provenance.
func NewTracker(objects []map[string]any, seeds []ObjectSeed, fields, max int) *Tracker {
	if max <= 0 {
		max = DefaultMaxFields
	}
	t := &Tracker{max: max, fields: fields, objects: make([]tracked, len(objects)), undecoded: objects == nil}
	if t.undecoded {
		t.objects = make([]tracked, len(seeds))
	}
	for i := range t.objects {
		if i < len(objects) {
			t.objects[i] = tracked{obj: objects[i]}
		}
		if i < len(seeds) {
			t.objects[i].root, t.objects[i].source, t.objects[i].element, t.objects[i].id = seeds[i].Root, seeds[i].Source, seeds[i].Element, seeds[i].ID
			t.objects[i].fields = seeds[i].Fields
		}
	}
	if fields > max {
		t.err = ErrTooManyFields
	}
	return t
}

// SetSecrets gives the values that must never appear in the Map (those of the parameters
// redact.Parameter calls secret): a member name or an object's name holding one is masked.
func (t *Tracker) SetSecrets(values *redact.Set) { t.secrets = values }

// Err is ErrTooManyFields once the objects passed the bound of leaf fields.
func (t *Tracker) Err() error { return t.err }

// Before snapshots the objects a step is about to run over.
func (t *Tracker) Before(objects []map[string]any) {
	if t.undecoded && t.err == nil {
		t.err = errUndecoded
	}
	if t.err != nil {
		return
	}
	t.align(objects)
	t.before = jsonbytes.CopyObjects(objects)
	t.beforeAt = make(map[unsafe.Pointer]int, len(objects))
	for i, obj := range objects {
		t.beforeAt[key(obj)] = i
	}
}

// align makes the tracked objects those of the list, by their maps: whatever was changed
// between steps without a tracker's knowledge is a new object of no known source.
func (t *Tracker) align(objects []map[string]any) {
	if len(objects) == len(t.objects) {
		same := true
		for i := range objects {
			same = same && key(objects[i]) == key(t.objects[i].obj)
		}
		if same {
			return
		}
	}
	at := make(map[unsafe.Pointer]int, len(t.objects))
	for i := range t.objects {
		at[key(t.objects[i].obj)] = i
	}
	aligned := make([]tracked, len(objects))
	for i, obj := range objects {
		if j, ok := at[key(obj)]; ok {
			aligned[i] = t.objects[j]
		} else {
			aligned[i] = tracked{obj: obj, source: Source{Kind: Engine}}
		}
	}
	t.objects = aligned
}

// After records what the step did to the objects Before saw: the fields it set or changed
// get the step, objects it made get it as their source. It returns Err.
func (t *Tracker) After(step StepInfo, objects []map[string]any) error {
	if t.err != nil {
		return t.err
	}
	index := int32(len(t.steps))
	t.steps = append(t.steps, step)
	from := t.matchObjects(objects)
	out := make([]tracked, len(objects))
	for i, obj := range objects {
		j := from[i]
		if j < 0 {
			out[i] = tracked{obj: obj, root: t.diff(nil, obj, false, nil, index), source: Source{Kind: Step}, steps: []int32{index}}
			continue
		}
		tr := t.objects[j]
		tr.obj = obj
		tr.root = t.diff(t.before[j], obj, true, tr.root, index)
		out[i] = tr
	}
	t.objects, t.before, t.beforeAt = out, nil, nil
	if t.fields > t.max {
		t.err = ErrTooManyFields
	}
	return t.err
}

// diff returns the Node of value now, given the value before the step (old, present says
// there was one) and its Node: unchanged subtrees keep their Nodes, changed leaves get the
// step, new leaves are the step's.
func (t *Tracker) diff(old, now any, present bool, node *Node, step int32) *Node {
	switch n := now.(type) {
	case map[string]any:
		if len(n) > 0 {
			return t.diffObject(old, n, node, step)
		}
	case []any:
		if len(n) > 0 {
			return t.diffArray(old, n, node, step)
		}
	}
	if node != nil && node.Field != nil {
		if !present || !sameLeaf(old, now) {
			node.Field.Steps = appendStep(node.Field.Steps, step)
		}
		return node
	}
	t.fields++
	leaf := t.alloc.Leaf(Source{Kind: Step}, nil)
	leaf.Field.Steps = []int32{step}
	if node != nil {
		// An object or array the step emptied: what it had is removed.
		leaf.Removed = append(node.Removed, emptied(old, step)...)
	}
	return leaf
}

// emptied returns the removals of every member or element of old, an object or array a step
// emptied or replaced.
func emptied(old any, step int32) []Removal {
	var out []Removal
	switch o := old.(type) {
	case map[string]any:
		for k := range o {
			out = append(out, Removal{At: positions.Step{Key: k}, Step: step})
		}
	case []any:
		for i := range o {
			out = append(out, Removal{At: indexStep(i), Step: step})
		}
	}
	return out
}

func indexStep(i int) positions.Step {
	return positions.Step{Key: strconv.Itoa(i), Index: i, IsIndex: true}
}

func (t *Tracker) diffObject(old any, now map[string]any, node *Node, step int32) *Node {
	before, _ := old.(map[string]any)
	var members []Member
	if node != nil && node.Field == nil {
		members = node.Members
	}
	keys := t.sortedKeys(now)
	// The new members are written on the scratch stack and kept only when one changed: most
	// steps change a few fields of an object, and its other objects keep their Nodes.
	start := len(t.members)
	same := node != nil && node.Field == nil && len(members) == len(keys)
	for i, k := range keys {
		ov, ok := before[k]
		var child *Node
		if ok {
			child = node.Member(k)
		}
		c := t.diff(ov, now[k], ok, child, step)
		same = same && c == child && child != nil && members[i].Name == k
		t.members = append(t.members, Member{Name: k, Node: c})
	}
	t.keys = t.keys[:len(t.keys)-len(keys)]
	var removed []Removal
	for k := range before {
		if _, kept := now[k]; !kept {
			removed = append(removed, Removal{At: positions.Step{Key: k}, Step: step})
		}
	}
	if same {
		t.members = t.members[:start]
		if len(removed) > 0 {
			node.Removed = append(node.Removed, removed...)
		}
		return node
	}
	n := t.alloc.Object(len(keys))
	n.Members = append(n.Members, t.members[start:]...)
	t.members = t.members[:start]
	n.Removed = removed
	if node != nil {
		n.Removed = append(node.Removed, removed...)
	}
	return n
}

// sortedKeys pushes the member names of m, sorted, onto the scratch stack t.keys; the caller
// pops them.
func (t *Tracker) sortedKeys(m map[string]any) []string {
	start := len(t.keys)
	for k := range m {
		t.keys = append(t.keys, k)
	}
	keys := t.keys[start:]
	SortNames(keys)
	return keys
}

func (t *Tracker) diffArray(old any, now []any, node *Node, step int32) *Node {
	before, _ := old.([]any)
	var elements []*Node
	if node != nil {
		elements = node.Elements
	}
	from := matchElements(before, now)
	same := node != nil && node.Field == nil && len(elements) == len(now)
	out := make([]*Node, len(now))
	kept := make([]bool, len(before))
	for _, j := range from {
		if j >= 0 {
			kept[j] = true
		}
	}
	var removed []Removal
	for j, k := range kept {
		if !k {
			removed = append(removed, Removal{At: indexStep(j), Step: step})
		}
	}
	for i, v := range now {
		j := from[i]
		var ov any
		var child *Node
		if j >= 0 {
			ov = before[j]
			if j < len(elements) {
				child = elements[j]
			}
		}
		c := t.diff(ov, v, j >= 0, child, step)
		same = same && c == child && child != nil && i == j
		out[i] = c
	}
	if same && len(removed) == 0 {
		return node
	}
	n := &Node{Elements: out, Removed: removed}
	if node != nil {
		n.Removed = append(node.Removed, removed...)
	}
	return n
}

// sameLeaf compares two leaf values: scalars by value, empty objects and arrays by kind.
func sameLeaf(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && len(x) == 0 && len(y) == 0
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == 0 && len(y) == 0
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

func appendStep(steps []int32, step int32) []int32 {
	if n := len(steps); n > 0 && steps[n-1] == step {
		return steps
	}
	return append(steps, step)
}
