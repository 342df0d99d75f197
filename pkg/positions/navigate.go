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

// The JSON an Index navigates is either what the YAML reader wrote (compact and valid) or a
// file's own JSON, which may have whitespace and may not be valid at all when the reader's
// caller reports it: every step below checks its bounds and gives up on what is not JSON.

// navigate returns the offsets of the member name (-1 for none) and of the value at p.
func navigate(data []byte, p Path) (key, value int, ok bool) {
	key, value, n := deepest(data, p)
	return key, value, n == len(p)
}

// deepest follows p as far as data has it: the offsets of the member name (-1 for none) and
// of the value of the longest prefix of p that data has, and its length (-1 when data holds
// no JSON value at all).
func deepest(data []byte, p Path) (key, value, n int) {
	v := skipSpace(data, 0)
	if v >= len(data) {
		return -1, -1, -1
	}
	w := navigator{data: data, p: p, budget: navigationBudget + 4*len(p), key: -1, value: v}
	w.walk(v, -1, 0, "", false)
	return w.key, w.value, w.n
}

// navigationBudget bounds the steps one lookup takes beyond four per step of its path. A path
// is any text a diagnostic names: a.a.a... of 10,000 steps in a document of nested a members
// would otherwise try every way of joining steps into dotted member names, at every level.
const navigationBudget = 1000

// maxJoinedName bounds a member name joined of several steps (libyaml takes no simple key
// longer than 1024 bytes; a JSON member name longer than this is not named by a dotted path).
const maxJoinedName = 4096

// navigator follows a path through JSON, remembering the deepest prefix found.
type navigator struct {
	data   []byte
	p      Path
	budget int
	// key, value and n are the deepest prefix of p found so far: its length and offsets.
	key, value, n int
}

// walk follows p[i:] from the value at data[v], whose member name is at key; joined says the
// step to take is the member named head, joined of the steps before p[i] and p[i]'s own key.
func (w *navigator) walk(v, key, i int, head string, joined bool) bool {
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
		if k, val, ok := member(w.data, v, name); ok && w.walk(val, k, i+1, "", false) {
			return true
		}
		// metadata.labels.app.kubernetes.io/name: a member name with dots, written after a dot.
		if i+1 < len(w.p) && (joined || !step.IsIndex) && !w.p[i+1].IsIndex && len(name)+1+len(w.p[i+1].Key) <= maxJoinedName {
			return w.walk(v, key, i+1, name+"."+w.p[i+1].Key, true)
		}
	case '[':
		if step.IsIndex && !joined {
			if val, ok := element(w.data, v, step.Index); ok {
				return w.walk(val, -1, i+1, "", false)
			}
		}
	}
	return false
}

// member finds the last member named name of the object at data[v].
func member(data []byte, v int, name string) (key, value int, found bool) {
	ok := members(data, v, func(k, val int, kname string) bool {
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
func members(data []byte, v int, fn func(key, value int, name string) bool) bool {
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
		if !fn(k, val, keyText(data[k:end])) {
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
func elements(data []byte, v int, fn func(i, value int) bool) bool {
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

func element(data []byte, v, index int) (value int, found bool) {
	elements(data, v, func(i, val int) bool {
		if i == index {
			value, found = val, true
			return false
		}
		return true
	})
	return value, found
}

func keyText(quoted []byte) string {
	if strings.IndexByte(string(quoted), '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	return string(jsonbytes.StringContent(quoted))
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

// walker calls a function for each field below a value, with the offsets of its member name
// (-1 for none) and value in the JSON.
type walker struct {
	json []byte
	fn   func(p Path, key, value int) bool
	stop bool
}

func (w *walker) value(v int, p Path, key int) {
	if w.stop {
		return
	}
	if !w.fn(p, key, v) {
		w.stop = true
		return
	}
	switch w.json[v] {
	case '{':
		members(w.json, v, func(k, val int, name string) bool {
			w.value(val, p.Child(name), k)
			return !w.stop
		})
	case '[':
		elements(w.json, v, func(i, val int) bool {
			w.value(val, p.Elem(i), -1)
			return !w.stop
		})
	}
}
