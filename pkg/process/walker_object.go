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
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// object compiles the object at src[start:] and returns its node (nil when unchanged) and
// the offset after it.
func (w *walker) object(start int, cx context) (*node, int) {
	src := w.src
	n := &node{kind: nodeObject}
	obj := &n.object
	obj.labels = cx.targets != nil && cx.targets.labels
	var present []*labelTarget
	changed := obj.labels
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart >= 0 {
			obj.chunks = append(obj.chunks, chunk{raw: src[runStart:runEnd]})
			runStart = -1
		}
	}
	i := start + 1
	for src[i] != '}' {
		memberStart := i
		keyEnd := skipString(src, i)
		keyRaw := src[i:keyEnd]
		valueStart := keyEnd + 1
		w.pushKey(keyRaw)
		name := stringContent(keyRaw)
		key := w.stringValue(keyRaw, context{}, true)
		if key != nil && key.kind != nodeStatic {
			obj.substitutedKeysAt = w.fieldPathOf(w.path[:len(w.path)-1]).String()
			if cx.targets != nil {
				// The substituted key might name a label target: only the slow path can tell.
				w.needSlow = true
			}
		}
		child, drop := w.memberContext(cx, name, valueStart)
		var value *node
		valueEnd := skipValue(src, valueStart)
		switch {
		case drop:
		case child.createInstead != nil:
			value = staticNode(src[valueStart:valueEnd])
		case cx.top && string(name) == "apiVersion" && w.apiVersion != nil:
			value = staticNode(w.apiVersion)
		default:
			value, valueEnd = w.value(valueStart, child)
		}
		if child.targets != nil && !drop {
			present = append(present, child.targets)
			if value != nil && value.kind == nodeJSON {
				// A label map (or what leads to one) given whole by ${{P}}.
				w.needSlow = true
			}
		}
		w.pop()
		i = valueEnd
		if src[i] == ',' {
			i++
		}
		switch {
		case drop:
			flush()
			changed = true
		case key == nil && value == nil && !obj.labels:
			if runStart < 0 {
				runStart = memberStart
			}
			runEnd = valueEnd
		default:
			flush()
			changed = true
			if key == nil {
				key = staticNode(keyRaw)
			}
			if value == nil {
				value = staticNode(src[valueStart:valueEnd])
			}
			ch := chunk{key: key, value: value, createInstead: child.createInstead}
			if obj.labels && key.kind == nodeStatic {
				ch.keyName = string(stringContent(key.raw))
			}
			obj.chunks = append(obj.chunks, ch)
		}
	}
	flush()
	end := i + 1
	if cx.targets != nil {
		for _, t := range cx.targets.children {
			if t.create && !slices.Contains(present, t) {
				obj.inserts = append(obj.inserts, t)
				changed = true
			}
		}
	}
	if cx.container != nil {
		w.checkAmbiguity(cx.container, src[start:end])
	}
	if !changed {
		return nil, end
	}
	return finish(n), end
}

// memberContext returns the context of the member name of an object in context cx, and
// whether the member is dropped (a hardcoded namespace).
func (w *walker) memberContext(cx context, name []byte, valueStart int) (context, bool) {
	var child context
	child.envIndex = -1
	if cx.targets != nil && !w.slow {
		if t := cx.targets.child(string(name)); t != nil {
			child.targets = t
			if t.create && w.src[valueStart] == 'n' {
				child.createInstead = t // null: created in place when there are labels
			}
		}
	}
	switch {
	case cx.top && string(name) == "metadata":
		child.metadata = true
	case cx.metadata && string(name) == "namespace":
		return child, !w.parameterisedNamespace(valueStart)
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
	segs, _ := w.c.sx.split(stringContent(w.src[at:skipString(w.src, at)]))
	for _, seg := range segs {
		if seg.ref {
			return true
		}
	}
	return false
}

// checkAmbiguity rejects $(P) in a container where Kubernetes would expand P as one of the
// container's env vars: in command and args any of them, in env[k].value those before k.
func (w *walker) checkAmbiguity(scope *containerScope, container []byte) {
	if len(scope.pending) == 0 {
		return
	}
	names := envNames(container)
	for _, ref := range scope.pending {
		visible := names
		if ref.envIndex >= 0 {
			visible = names[:min(ref.envIndex, len(names))]
		}
		if slices.Contains(visible, ref.name) {
			w.errorf(field.Invalid(ref.path, "$("+ref.name+")", fmt.Sprintf(
				"%s is both a template parameter and an env var of this container: write ${%s} for the parameter or $$(%s) for the env var",
				ref.name, ref.name, ref.name)))
		}
	}
}

// envNames lists the names of a container's env vars in order ("" for a name that is not a
// literal string).
func envNames(container []byte) []string {
	var names []string
	forEachMember(container, 0, func(key []byte, at, end int) {
		if string(key) != `"env"` || container[at] != '[' {
			return
		}
		for i := at + 1; container[i] != ']'; {
			itemEnd := skipValue(container, i)
			name := ""
			if container[i] == '{' {
				forEachMember(container, i, func(k []byte, vAt, vEnd int) {
					if string(k) == `"name"` && container[vAt] == '"' {
						name = string(stringContent(container[vAt:vEnd]))
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
	for i++; b[i] != '}'; {
		keyEnd := skipString(b, i)
		end := skipValue(b, keyEnd+1)
		fn(b[i:keyEnd], keyEnd+1, end)
		i = end
		if b[i] == ',' {
			i++
		}
	}
}
