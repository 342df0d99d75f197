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

	"stencil.dev/stencil/pkg/jsonbytes"
)

// walker compiles one object into ops. It reads the compacted JSON once, descends only into
// values that hold a "$" or lead to a label target, and copies everything else as it is.
type walker struct {
	c    *compiler
	src  []byte
	st   *structure
	root objectPath
	path []pathSegment
	errs field.ErrorList
	// warnings are added to the plan once the object compiled (it may be compiled twice).
	warnings []walkerWarning
	// slow keeps label targets and groupification out of the program; needSlow asks for it.
	slow     bool
	needSlow bool
	// apiVersion replaces the object's apiVersion (OpenShift groupification), when set.
	apiVersion []byte
	// barrier is the first op a literal may extend (see extendLit).
	barrier int
	// keySegs and valueSegs are reused by every string compiled.
	keySegs, valueSegs []segment
}

// pathSegment is a member key (raw JSON string) or an array index.
type pathSegment struct {
	key   []byte
	index int
}

// walkContext is what a value's position means for compiling it.
type walkContext struct {
	// targets are the label targets at and below this value; targetIndex is its index among
	// its parent's children.
	targets     *labelTarget
	targetIndex int
	// createInstead marks a null label target, replaced by the target created when there are
	// labels to add.
	createInstead *labelTarget
	// top is the object itself; metadata is its metadata, where namespaces are stripped.
	top, metadata bool
	// bareTop marks the top of an OpenShift template's object that has no metadata, whose
	// top-level namespace OpenShift blanks instead (library-go's stripNamespace).
	bareTop bool
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

func (w *walker) pushKey(key []byte) { w.path = append(w.path, pathSegment{key: key, index: -1}) }
func (w *walker) pushIndex(i int)    { w.path = append(w.path, pathSegment{index: i}) }
func (w *walker) pop()               { w.path = w.path[:len(w.path)-1] }

func (w *walker) errorf(err *field.Error) { w.errs = append(w.errs, err) }

// fieldPath returns the path of the value being compiled; it is built only for messages.
func (w *walker) fieldPath() *field.Path { return w.fieldPathOf(w.path) }

// fieldPathOf returns the path of the value at segments below the root.
func (w *walker) fieldPathOf(segments []pathSegment) *field.Path {
	p := w.root.path()
	for _, seg := range segments {
		if seg.key == nil {
			p = p.Index(seg.index)
			continue
		}
		name := string(jsonbytes.StringContent(seg.key))
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

// mayChange reports whether compiling the value at src[at:end] in context cx can give
// anything but its bytes.
func (w *walker) mayChange(at, end int, cx walkContext) bool {
	return cx.targets != nil || cx.metadata || cx.createInstead != nil || w.st.hasDollar(at, end)
}

// value compiles the value at src[at:end], which mayChange. It emits the value's ops and
// reports whether they differ from its bytes; when not, it emits nothing.
func (w *walker) value(at, end int, cx walkContext) bool {
	switch w.src[at] {
	case '{':
		return w.object(at, end, cx)
	case '[':
		return w.array(at, end, cx)
	case '"':
		s := w.compileString(w.src[at:end], cx, false, &w.valueSegs)
		if s.kind == unchanged {
			return false
		}
		w.emitString(s)
		return true
	}
	return false
}

// array compiles the array at src[at:end].
func (w *walker) array(at, end int, cx walkContext) bool {
	m := w.mark()
	w.emitByte('[')
	changed := false
	runStart := -1
	state := noMemberYet
	flush := func(upTo int) {
		if runStart >= 0 {
			w.comma(state)
			w.emitLit(w.src[runStart:upTo])
			state, runStart = hadMember, -1
		}
	}
	i := at + 1
	for index := 0; i < end-1; index++ {
		itemEnd := w.st.end(w.src, i)
		item := walkContext{expandIn: cx.expandIn, envIndex: cx.envIndex}
		if cx.envOf != nil {
			item.envItemOf, item.envIndex = cx.envOf, index
		}
		if w.mayChange(i, itemEnd, item) {
			if cx.containers {
				item.container = &containerScope{start: i}
			}
			flush(i - 1)
			w.comma(state)
			state = hadMember
			w.pushIndex(index)
			if w.value(i, itemEnd, item) {
				changed = true
			} else {
				w.emitLit(w.src[i:itemEnd])
			}
			w.pop()
		} else if runStart < 0 {
			runStart = i
		}
		i = itemEnd + 1 // past the comma or the closing bracket
	}
	flush(end - 1)
	if !changed {
		w.rewind(m)
		return false
	}
	w.emitByte(']')
	return true
}
