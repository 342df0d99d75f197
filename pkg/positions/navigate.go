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

// The JSON an Index navigates is either what the YAML reader wrote (compact and valid) or a
// file's own JSON, which may have whitespace and may not be valid at all when the reader's
// caller reports it: the tree (tree.go) of bytes that are not JSON is nil, and finds nothing.

// deepest follows p as far as the document has it: the node of the longest prefix of p that
// it has, and that prefix's length (-1 when the data holds no JSON value at all).
func (t *tree) deepest(p Path) (nd int32, n int) {
	if t == nil || len(t.nodes) == 0 {
		return 0, -1
	}
	w := navigator{t: t, p: p, budget: navigationBudget + 4*len(p)}
	w.walk(0, 0, "", false)
	return w.node, w.n
}

// navigationBudget bounds the steps one lookup takes beyond four per step of its path. A path
// is any text a diagnostic names: a.a.a... of 10,000 steps in a document of nested a members
// would otherwise try every way of joining steps into dotted member names, at every level.
const navigationBudget = 1000

// maxJoinedName bounds a member name joined of several steps (libyaml takes no simple key
// longer than 1024 bytes; a JSON member name longer than this is not named by a dotted path).
const maxJoinedName = 4096

// navigator follows a path through the tree, remembering the deepest prefix found.
type navigator struct {
	t      *tree
	p      Path
	budget int
	// node and n are the deepest prefix of p found so far: its node and its length.
	node int32
	n    int
}

// walk follows p[i:] from the node nd; joined says the step to take is the member named head,
// joined of the steps before p[i] and p[i]'s own key.
func (w *navigator) walk(nd int32, i int, head string, joined bool) bool {
	if w.budget--; w.budget < 0 {
		return false
	}
	if !joined && i > w.n {
		w.node, w.n = nd, i
	}
	if i == len(w.p) {
		return !joined
	}
	step := w.p[i]
	name := step.Key
	if joined {
		name = head
	}
	switch w.t.kind(nd) {
	case '{':
		if m, ok := w.t.member(nd, name); ok && w.walk(m, i+1, "", false) {
			return true
		}
		// metadata.labels.app.kubernetes.io/name: a member name with dots, written after a dot.
		if i+1 < len(w.p) && (joined || !step.IsIndex) && !w.p[i+1].IsIndex && len(name)+1+len(w.p[i+1].Key) <= maxJoinedName {
			return w.walk(nd, i+1, name+"."+w.p[i+1].Key, true)
		}
	case '[':
		if step.IsIndex && !joined {
			if e, ok := w.t.element(nd, step.Index); ok {
				return w.walk(e, i+1, "", false)
			}
		}
	}
	return false
}

// walkFrom calls fn for the node nd at path p and every field below it, in the order of the
// JSON, with the offsets of each one's member name (-1 for none) and value, until fn returns
// false; it reports whether fn never did.
func (t *tree) walkFrom(nd int32, p Path, fn func(p Path, key, value int) bool) bool {
	n := t.nodes[nd]
	if !fn(p, int(n.key), int(n.value)) {
		return false
	}
	switch t.kind(nd) {
	case '{':
		for _, k := range t.children(nd) {
			if !t.walkFrom(k, p.Child(string(t.name(k))), fn) {
				return false
			}
		}
	case '[':
		for i, e := range t.children(nd) {
			if !t.walkFrom(e, p.Elem(i), fn) {
				return false
			}
		}
	}
	return true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset after the string starting at data[i], or -1.
func stringEnd(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the offset after the value starting at data[i], or -1.
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := stringEnd(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' &&
		data[j] != '\n' && data[j] != '\r' && data[j] != '\t' {
		j++
	}
	return j
}
