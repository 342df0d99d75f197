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

package process

import (
	"bytes"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// memberContext returns the context of the member name of an object in context cx, and
// whether the member is dropped (a hardcoded namespace; the member puts "" in its place
// where OpenShift does).
func (w *walker) memberContext(cx walkContext, name []byte, valueAt int) (walkContext, bool) {
	child := walkContext{envIndex: -1}
	if cx.targets != nil {
		if i, t := cx.targets.child(name); t != nil {
			child.targets, child.targetIndex = t, i
			if t.create && w.src[valueAt] == 'n' {
				child.createInstead = t // null: created in place when there are labels
			}
		}
	}
	switch {
	case cx.top && string(name) == "metadata":
		child.metadata = true
	case (cx.metadata || cx.bareTop) && string(name) == "namespace":
		return child, !w.parameterisedNamespace(valueAt)
	case string(name) == "containers" || string(name) == "initContainers" || string(name) == "ephemeralContainers":
		child.containers = true
	}
	switch {
	case cx.container != nil && string(name) == "env":
		child.envOf = cx.container
	case cx.container != nil && (string(name) == "command" || string(name) == "args"):
		child.expandIn = cx.container
	case cx.envItemOf != nil && string(name) == "value":
		child.expandIn, child.envIndex = cx.envItemOf, cx.envIndex
	case cx.expandIn != nil:
		child.expandIn, child.envIndex = cx.expandIn, cx.envIndex
	}
	return child, false
}

// parameterisedNamespace reports whether the namespace at src[at:] holds a reference, so it is
// kept; a hardcoded one is removed, as OpenShift does.
func (w *walker) parameterisedNamespace(at int) bool {
	if w.src[at] != '"' {
		return false
	}
	content := jsonbytes.StringContent(w.src[at:w.st.end(w.src, at)])
	segs, _ := w.c.sx.split(content, w.valueSegs[:0])
	for _, seg := range segs {
		if seg.ref {
			return true
		}
	}
	return false
}

// containerScope is a container object, whose env var names are read when a $(P) inside it
// needs them.
type containerScope struct {
	start int
	names [][]byte
	read  bool
}

// checkAmbiguity rejects $(name) where Kubernetes would expand name as an env var of the
// container: in command and args any of them, in env[k].value those before k.
func (w *walker) checkAmbiguity(scope *containerScope, envIndex int, name []byte) {
	if !scope.read {
		scope.names, scope.read = envNames(w.src[scope.start:w.st.end(w.src, scope.start)]), true
	}
	visible := scope.names
	if envIndex >= 0 {
		visible = visible[:min(envIndex, len(visible))]
	}
	if slices.ContainsFunc(visible, func(n []byte) bool { return bytes.Equal(n, name) }) {
		n := string(name)
		w.errorf(field.Invalid(w.fieldPath(), "$("+n+")", fmt.Sprintf(
			"%s is both a template parameter and an env var of this container: write ${%s} for the parameter or $$(%s) for the env var",
			n, n, n)))
	}
}

// envNames lists the names of a container's env vars in order (nil for a name that is not a
// literal string).
func envNames(container []byte) [][]byte {
	var names [][]byte
	forEachMember(container, 0, func(key []byte, at, end int) {
		if string(key) != `"env"` || container[at] != '[' {
			return
		}
		for i := at + 1; container[i] != ']'; {
			itemEnd := jsonbytes.SkipValue(container, i)
			var name []byte
			if container[i] == '{' {
				forEachMember(container, i, func(k []byte, vAt, vEnd int) {
					if string(k) == `"name"` && container[vAt] == '"' {
						name = jsonbytes.StringContent(container[vAt:vEnd])
					}
				})
			}
			names = append(names, name)
			i = itemEnd
			if container[i] == ',' {
				i++
			}
		}
	})
	return names
}

// forEachMember calls fn with the raw key and the value's bounds of each member of the object
// at b[i:].
func forEachMember(b []byte, i int, fn func(key []byte, at, end int)) {
	forEachMemberOf(b, i, nil, fn)
}

// forEachMemberOf is forEachMember over b indexed by st, when st is not nil: the ends of
// objects and arrays are then looked up instead of read again.
func forEachMemberOf(b []byte, i int, st *structure, fn func(key []byte, at, end int)) {
	for i++; b[i] != '}'; {
		var keyEnd, end int
		if st != nil {
			keyEnd = st.end(b, i)
			end = st.end(b, keyEnd+1)
		} else {
			keyEnd = jsonbytes.SkipString(b, i)
			end = jsonbytes.SkipValue(b, keyEnd+1)
		}
		fn(b[i:keyEnd], keyEnd+1, end)
		i = end
		if b[i] == ',' {
			i++
		}
	}
}
