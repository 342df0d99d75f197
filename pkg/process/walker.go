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
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// walker compiles one object: it walks the compacted JSON once and keeps every value that no
// request can change as the bytes it already is.
type walker struct {
	c    *compiler
	src  []byte
	root *field.Path
	path []pathSegment
	errs field.ErrorList
	// warnings are added to the plan once the object compiled (it may be compiled twice).
	warnings []walkerWarning
	// slow keeps label targets and groupification out of the plan; needSlow asks for it.
	slow     bool
	needSlow bool
	// apiVersion replaces the object's apiVersion (OpenShift groupification), when set.
	apiVersion []byte
}

// pathSegment is a member key (raw JSON string) or an array index.
type pathSegment struct {
	key   []byte
	index int
}

// context is what a value's position means for compiling it.
type context struct {
	// targets are the label targets at and below this value.
	targets *labelTarget
	// createInstead marks a null label target, replaced by the created target when there are
	// labels to add.
	createInstead *labelTarget
	// top is the object itself; metadata is its metadata, where namespaces are stripped.
	top, metadata bool
	// containers marks an array of containers; container marks a container object.
	containers bool
	container  *containerScope
	// envOf marks the env array of a container; envItemOf one of its items, at envIndex.
	envOf     *containerScope
	envItemOf *containerScope
	envIndex  int
	// expandIn is set where Kubernetes expands $(VAR) with the container's env vars: command,
	// args (envIndex -1) and env[envIndex].value.
	expandIn *containerScope
}

// containerScope collects the $(P) references of a container that Kubernetes would expand,
// to check them against the container's env vars once the container is read.
type containerScope struct {
	start   int
	pending []pendingReference
}

type pendingReference struct {
	name     string
	envIndex int
	path     *field.Path
}

func (w *walker) pushKey(key []byte)      { w.path = append(w.path, pathSegment{key: key, index: -1}) }
func (w *walker) pushIndex(i int)         { w.path = append(w.path, pathSegment{index: i}) }
func (w *walker) pop()                    { w.path = w.path[:len(w.path)-1] }
func (w *walker) errorf(err *field.Error) { w.errs = append(w.errs, err) }

// fieldPath returns the path of the value being compiled; it is built only for messages.
func (w *walker) fieldPath() *field.Path { return w.fieldPathOf(w.path) }

// fieldPathOf returns the path of the value at segments below the root.
func (w *walker) fieldPathOf(segments []pathSegment) *field.Path {
	p := w.root
	for _, seg := range segments {
		if seg.key == nil {
			p = p.Index(seg.index)
			continue
		}
		name := string(stringContent(seg.key))
		if isPlainFieldName(name) {
			p = p.Child(name)
		} else {
			p = p.Key(name)
		}
	}
	return p
}

// isPlainFieldName reports whether a key reads well as .name in a path, rather than [name].
func isPlainFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isBraceNameChar(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// value compiles the value at src[i:] and returns its node (nil when it is written exactly as
// it is in src) and the offset after it.
func (w *walker) value(i int, cx context) (*node, int) {
	switch w.src[i] {
	case '{', '[':
		end := skipValue(w.src, i)
		if cx.targets == nil && !cx.top && !cx.metadata && !mayHoldReference(w.src[i:end]) {
			return nil, end
		}
		if w.src[i] == '{' {
			return w.object(i, cx)
		}
		return w.array(i, cx), end
	case '"':
		end := skipString(w.src, i)
		return w.stringValue(w.src[i:end], cx, false), end
	default:
		return nil, skipValue(w.src, i)
	}
}

// array compiles the array at src[i:].
func (w *walker) array(i int, cx context) *node {
	n := &node{kind: nodeArray}
	changed := false
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart >= 0 {
			n.items = append(n.items, chunk{raw: w.src[runStart:runEnd]})
			runStart = -1
		}
	}
	i++
	for index := 0; w.src[i] != ']'; index++ {
		item := context{expandIn: cx.expandIn, envIndex: cx.envIndex}
		switch {
		case cx.containers:
			item.container = &containerScope{start: i}
		case cx.envOf != nil:
			item.envItemOf, item.envIndex = cx.envOf, index
		}
		w.pushIndex(index)
		start := i
		v, end := w.value(i, item)
		w.pop()
		if v == nil {
			if runStart < 0 {
				runStart = start
			}
			runEnd = end
		} else {
			flush()
			changed = true
			n.items = append(n.items, chunk{value: v})
		}
		i = end
		if w.src[i] == ',' {
			i++
		}
	}
	flush()
	if !changed {
		return nil
	}
	return finish(n)
}

// finish turns a container whose chunks are all fixed bytes into one static node.
func finish(n *node) *node {
	chunks := n.items
	open, closing := byte('['), byte(']')
	if n.kind == nodeObject {
		if n.object.labels || len(n.object.inserts) > 0 || n.object.substitutedKeysAt != "" {
			return n
		}
		chunks, open, closing = n.object.chunks, '{', '}'
	}
	size := 2
	for _, ch := range chunks {
		if !ch.isRun() && (ch.key != nil && ch.key.kind != nodeStatic || ch.value.kind != nodeStatic || ch.createInstead != nil) {
			return n
		}
		size += len(ch.raw) + 1
		if !ch.isRun() {
			size += len(ch.value.raw)
			if ch.key != nil {
				size += len(ch.key.raw) + 1
			}
		}
	}
	raw := make([]byte, 0, size)
	raw = append(raw, open)
	for i, ch := range chunks {
		if i > 0 {
			raw = append(raw, ',')
		}
		if ch.isRun() {
			raw = append(raw, ch.raw...)
			continue
		}
		if ch.key != nil {
			raw = append(raw, ch.key.raw...)
			raw = append(raw, ':')
		}
		raw = append(raw, ch.value.raw...)
	}
	return staticNode(append(raw, closing))
}
