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
	"strings"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// The navigation of the JSON before the tree (tree.go): every lookup scanned each container on
// its path from its start, so that placing every field of a file was quadratic in it. It
// stays here as the oracle of TestTreeAgreesWithScan: the tree must find what it found.

// deepest follows p as far as data has it: the offsets of the member name (-1 for none) and
// of the value of the longest prefix of p that data has, and its length (-1 when data holds
// no JSON value at all).
func scanDeepest(data []byte, p Path) (key, value, n int) {
	v := skipSpace(data, 0)
	if v >= len(data) {
		return -1, -1, -1
	}
	w := scanNavigator{data: data, p: p, budget: navigationBudget + 4*len(p), key: -1, value: v}
	w.walk(v, -1, 0, "", false)
	return w.key, w.value, w.n
}

// scanNavigator follows a path through JSON, remembering the deepest prefix found.
type scanNavigator struct {
	data   []byte
	p      Path
	budget int
	// key, value and n are the deepest prefix of p found so far: its length and offsets.
	key, value, n int
}

// walk follows p[i:] from the value at data[v], whose member name is at key; joined says the
// step to take is the member named head, joined of the steps before p[i] and p[i]'s own key.
func (w *scanNavigator) walk(v, key, i int, head string, joined bool) bool {
	if w.budget--; w.budget < 0 {
		return false
	}
	if !joined && i > w.n {
		w.key, w.value, w.n = key, v, i
	}
	if i == len(w.p) {
		return !joined
	}
	step := w.p[i]
	name := step.Key
	if joined {
		name = head
	}
	switch w.data[v] {
	case '{':
		if k, val, ok := scanMember(w.data, v, name); ok && w.walk(val, k, i+1, "", false) {
			return true
		}
		// metadata.labels.app.kubernetes.io/name: a member name with dots, written after a dot.
		if i+1 < len(w.p) && (joined || !step.IsIndex) && !w.p[i+1].IsIndex && len(name)+1+len(w.p[i+1].Key) <= maxJoinedName {
			return w.walk(v, key, i+1, name+"."+w.p[i+1].Key, true)
		}
	case '[':
		if step.IsIndex && !joined {
			if val, ok := scanElement(w.data, v, step.Index); ok {
				return w.walk(val, -1, i+1, "", false)
			}
		}
	}
	return false
}

// member finds the last member named name of the object at data[v].
func scanMember(data []byte, v int, name string) (key, value int, found bool) {
	ok := scanMembers(data, v, func(k, val int, kname string) bool {
		if kname == name {
			key, value, found = k, val, true
		}
		return true
	})
	return key, value, ok && found
}

// members calls fn with the offsets of each member name and value of the object at data[v]
// and the decoded name, until fn returns false; it reports whether the object was well formed
// up to there.
func scanMembers(data []byte, v int, fn func(key, value int, name string) bool) bool {
	i := skipSpace(data, v+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		k := i
		end := stringEnd(data, k)
		if end < 0 {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		val := skipSpace(data, i+1)
		next := valueEnd(data, val)
		if next < 0 {
			return false
		}
		if !fn(k, val, scanKeyText(data[k:end])) {
			return true
		}
		i = skipSpace(data, next)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			return true
		}
		if data[i] != ',' {
			return false
		}
		i = skipSpace(data, i+1)
	}
	return false
}

// elements calls fn with the offset of each element of the array at data[v], as members does.
func scanElements(data []byte, v int, fn func(i, value int) bool) bool {
	i := skipSpace(data, v+1)
	if i < len(data) && data[i] == ']' {
		return true
	}
	for n := 0; i < len(data); n++ {
		next := valueEnd(data, i)
		if next < 0 {
			return false
		}
		if !fn(n, i) {
			return true
		}
		i = skipSpace(data, next)
		if i >= len(data) {
			return false
		}
		if data[i] == ']' {
			return true
		}
		if data[i] != ',' {
			return false
		}
		i = skipSpace(data, i+1)
	}
	return false
}

func scanElement(data []byte, v, index int) (value int, found bool) {
	scanElements(data, v, func(i, val int) bool {
		if i == index {
			value, found = val, true
			return false
		}
		return true
	})
	return value, found
}

func scanKeyText(quoted []byte) string {
	if strings.IndexByte(string(quoted), '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	return string(jsonbytes.StringContent(quoted))
}
