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

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// write appends the node's output to the buffer.
func (x *executor) write(n *node) {
	switch n.kind {
	case nodeStatic:
		x.buf = append(x.buf, n.raw...)
	case nodeText:
		x.buf = append(x.buf, '"')
		for i := range n.parts {
			if p := &n.parts[i]; p.param < 0 {
				x.buf = append(x.buf, p.literal...)
			} else {
				x.buf = append(x.buf, x.values[p.param].text...)
			}
		}
		x.buf = append(x.buf, '"')
	case nodeJSON:
		x.buf = append(x.buf, x.values[n.param].json...)
	case nodeObject:
		x.writeObject(&n.object)
	case nodeArray:
		x.buf = append(x.buf, '[')
		for i := range n.items {
			if i > 0 {
				x.buf = append(x.buf, ',')
			}
			if ch := &n.items[i]; ch.isRun() {
				x.buf = append(x.buf, ch.raw...)
			} else {
				x.write(ch.value)
			}
		}
		x.buf = append(x.buf, ']')
	}
}

// removed reports whether a member's value is a JSON null from ${{P}}, which removes the member.
func (x *executor) removed(value *node) bool {
	return value.kind == nodeJSON && x.values[value.param].null
}

// writeObject writes an object, merging the object labels into it when it is a label map and
// creating the label targets it lacks.
func (x *executor) writeObject(o *objectNode) {
	start := len(x.buf)
	x.buf = append(x.buf, '{')
	labels := o.labels && len(x.labels) > 0
	if labels {
		clear(x.used)
	}
	first := true
	comma := func() {
		if !first {
			x.buf = append(x.buf, ',')
		}
		first = false
	}
	for i := range o.chunks {
		ch := &o.chunks[i]
		if ch.isRun() {
			comma()
			x.buf = append(x.buf, ch.raw...)
			continue
		}
		if x.removed(ch.value) {
			continue
		}
		if labels {
			name := ch.keyName
			if ch.key.kind != nodeStatic {
				name = x.keyString(ch.key)
			}
			if at, ok := x.labelIndex[name]; ok {
				if !x.used[at] {
					comma()
					x.buf = append(x.buf, x.labels[at].member...)
					x.used[at] = true
				}
				continue
			}
		}
		comma()
		if ch.createInstead != nil && len(x.labels) > 0 {
			x.writeCreated(ch.createInstead)
			continue
		}
		x.write(ch.key)
		x.buf = append(x.buf, ':')
		x.write(ch.value)
	}
	if labels {
		for at := range x.labels {
			if !x.used[at] {
				comma()
				x.buf = append(x.buf, x.labels[at].member...)
			}
		}
	}
	if len(x.labels) > 0 {
		for _, t := range o.inserts {
			comma()
			x.writeCreated(t)
		}
	}
	x.buf = append(x.buf, '}')
	if o.substitutedKeysAt != "" {
		x.checkDuplicateKeys(x.buf[start:], o.substitutedKeysAt)
	}
}

// writeCreated writes a missing label target as a member: "metadata":{"labels":{...}}.
func (x *executor) writeCreated(t *labelTarget) {
	x.buf = appendQuoted(x.buf, t.key)
	x.buf = append(x.buf, ':')
	if t.labels {
		x.buf = append(x.buf, x.labelObject...)
		return
	}
	x.buf = append(x.buf, '{')
	first := true
	for _, c := range t.children {
		if c.create {
			if !first {
				x.buf = append(x.buf, ',')
			}
			first = false
			x.writeCreated(c)
		}
	}
	x.buf = append(x.buf, '}')
}

// keyString returns the decoded value of a substituted key.
func (x *executor) keyString(key *node) string {
	mark := len(x.buf)
	x.write(key)
	name := string(stringContent(x.buf[mark:]))
	x.buf = x.buf[:mark]
	return name
}

// checkDuplicateKeys rejects an object whose substituted keys collide, which JSON consumers
// would resolve differently.
func (x *executor) checkDuplicateKeys(object []byte, path string) {
	seen := map[string]bool{}
	forEachMember(object, 0, func(key []byte, _, _ int) {
		name := string(stringContent(key))
		if seen[name] {
			x.errs = append(x.errs, field.Duplicate(field.NewPath(path), name))
		}
		seen[name] = true
	})
}

// objectError reports a problem found in an object after substitution.
func (x *executor) objectError(path *field.Path, value any, format string, args ...any) {
	x.errs = append(x.errs, field.Invalid(path, value, fmt.Sprintf(format, args...)))
}
