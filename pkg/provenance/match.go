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
	"reflect"
	"unsafe"
)

// How the Tracker matches what a step returned with what it was given: objects, and the
// elements of arrays.

// matchObjects finds, for each object after the step, the object before it that it is: the
// same map; else one of the same apiVersion, kind, namespace and name; else of the same kind
// and name (a step moved it); else the one at its place, of its kind (a step rebuilt and
// renamed it). -1 is an object the step made.
func (t *Tracker) matchObjects(objects []map[string]any) []int {
	from := make([]int, len(objects))
	used := make([]bool, len(t.before))
	for i, obj := range objects {
		from[i] = -1
		if j, ok := t.beforeAt[key(obj)]; ok && !used[j] {
			from[i], used[j] = j, true
		}
	}
	type kindName struct{ kind, name string }
	var byID map[ObjectID][]int
	var byName map[kindName][]int
	take := func(candidates []int) int {
		for _, j := range candidates {
			if !used[j] {
				used[j] = true
				return j
			}
		}
		return -1
	}
	for i, obj := range objects {
		if from[i] >= 0 {
			continue
		}
		if byID == nil {
			byID, byName = map[ObjectID][]int{}, map[kindName][]int{}
			for j, b := range t.before {
				id := idOf(b)
				byID[id] = append(byID[id], j)
				byName[kindName{id.Kind, id.Name}] = append(byName[kindName{id.Kind, id.Name}], j)
			}
		}
		id := idOf(obj)
		if j := take(byID[id]); j >= 0 {
			from[i] = j
		} else if j := take(byName[kindName{id.Kind, id.Name}]); j >= 0 {
			from[i] = j
		} else if i < len(t.before) && !used[i] && idOf(t.before[i]).Kind == id.Kind {
			from[i], used[i] = i, true
		}
	}
	return from
}

// matchElements finds, for each element of an array after a step, the element it was: by
// name when every element of both is an object with a string name (containers, env, ports,
// volumes, which patches insert into and reorder), else by place.
func matchElements(before, now []any) []int {
	from := make([]int, len(now))
	if names, ok := elementNames(before); ok {
		if nowNames, ok := elementNames(now); ok {
			at := make(map[string][]int, len(names))
			for j, n := range names {
				at[n] = append(at[n], j)
			}
			for i, n := range nowNames {
				from[i] = -1
				if js := at[n]; len(js) > 0 {
					from[i], at[n] = js[0], js[1:]
				}
			}
			return from
		}
	}
	for i := range now {
		from[i] = -1
		if i < len(before) {
			from[i] = i
		}
	}
	return from
}

func elementNames(elements []any) ([]string, bool) {
	if len(elements) == 0 {
		return nil, false
	}
	names := make([]string, len(elements))
	for i, e := range elements {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		if names[i], ok = m["name"].(string); !ok {
			return nil, false
		}
	}
	return names, true
}

func idOf(obj map[string]any) ObjectID {
	meta, _ := obj["metadata"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	return ObjectID{str(obj, "apiVersion"), str(obj, "kind"), str(meta, "namespace"), str(meta, "name")}
}

// key identifies an object by its map, which steps edit in place.
func key(obj map[string]any) unsafe.Pointer { return reflect.ValueOf(obj).UnsafePointer() }
