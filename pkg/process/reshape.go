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

// The slow path: an object whose kind, apiVersion or label targets depend on parameter values
// is written like any other, then read back into a small tree that gets its group and labels
// by its kind after substitution, with the same rules and member order as the fast path.

// tree is a JSON value read from compact, valid JSON. Scalars and strings keep their bytes.
type tree struct {
	raw     []byte
	object  bool
	array   bool
	members []treeMember
	items   []*tree
}

type treeMember struct {
	key   []byte // quoted, as written
	value *tree
}

// parseTree reads the value at b[i:] and returns it and the offset after it.
func parseTree(b []byte, i int) (*tree, int) {
	switch b[i] {
	case '{':
		t := &tree{object: true}
		for i++; b[i] != '}'; {
			keyEnd := jsonbytes.SkipString(b, i)
			value, end := parseTree(b, keyEnd+1)
			t.members = append(t.members, treeMember{key: b[i:keyEnd], value: value})
			i = end
			if b[i] == ',' {
				i++
			}
		}
		return t, i + 1
	case '[':
		t := &tree{array: true}
		for i++; b[i] != ']'; {
			item, end := parseTree(b, i)
			t.items = append(t.items, item)
			i = end
			if b[i] == ',' {
				i++
			}
		}
		return t, i + 1
	}
	end := jsonbytes.SkipValue(b, i)
	return &tree{raw: b[i:end]}, end
}

// appendTo writes the tree as compact JSON.
func (t *tree) appendTo(dst []byte) []byte {
	switch {
	case t.object:
		dst = append(dst, '{')
		for i, m := range t.members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, m.key...)
			dst = append(dst, ':')
			dst = m.value.appendTo(dst)
		}
		return append(dst, '}')
	case t.array:
		dst = append(dst, '[')
		for i, item := range t.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = item.appendTo(dst)
		}
		return append(dst, ']')
	}
	return append(dst, t.raw...)
}

// member returns the member named name, or nil.
func (t *tree) member(name string) *treeMember {
	for i := range t.members {
		if string(jsonbytes.StringContent(t.members[i].key)) == name {
			return &t.members[i]
		}
	}
	return nil
}

// stringValue returns the decoded string, and false when t is not a string.
func (t *tree) stringValue() (string, bool) {
	if len(t.raw) == 0 || t.raw[0] != '"' {
		return "", false
	}
	return string(jsonbytes.StringContent(t.raw)), true
}

// reshape gives the object written at x.buf[start:] its group and labels.
func (x *executor) reshape(start int, obj *compiledObject) {
	doc, _ := parseTree(x.buf[start:], 0)
	var header [2]string
	for i, name := range []string{"kind", "apiVersion"} {
		m := doc.member(name)
		if m == nil {
			x.errs = append(x.errs, field.Required(obj.at.path().Child(name), "missing after substitution"))
			return
		}
		value, ok := m.value.stringValue()
		switch {
		case !ok:
			x.objectError(obj.at.path().Child(name), string(m.value.appendTo(nil)), "must be a string after substitution")
			return
		case value == "":
			x.errs = append(x.errs, field.Required(obj.at.path().Child(name), "empty after substitution"))
			return
		}
		header[i] = value
	}
	kind, apiVersion := header[0], header[1]
	if x.plan.dialect == OpenShift {
		if grouped, ok := groupify([]byte(apiVersion), []byte(kind)); ok {
			doc.member("apiVersion").value = &tree{raw: jsonbytes.AppendQuoted(nil, grouped)}
		}
	}
	if len(x.labels) > 0 {
		x.applyLabelTargets(doc, labelTargetsFor(x.plan.dialect, []byte(apiVersion), []byte(kind)))
	}
	// The tree's bytes alias the buffer, so write it out elsewhere before replacing them.
	out := doc.appendTo(nil)
	x.buf = append(x.buf[:start], out...)
}

// applyLabelTargets merges the labels into the label maps under t and creates the missing ones.
func (x *executor) applyLabelTargets(t *tree, targets *labelTarget) {
	for _, target := range targets.children {
		m := t.member(target.key)
		switch {
		case m == nil && target.create:
			t.members = append(t.members, treeMember{key: jsonbytes.AppendQuoted(nil, target.key), value: x.createdTree(target)})
		case m == nil:
		case string(m.value.raw) == "null" && target.create:
			m.value = x.createdTree(target)
		case !m.value.object:
		case target.labels:
			x.mergeLabels(m.value)
		default:
			x.applyLabelTargets(m.value, target)
		}
	}
}

// mergeLabels sets every label in the label map t, in place when the key is there.
func (x *executor) mergeLabels(t *tree) {
	clear(x.used)
	kept := t.members[:0]
	for _, m := range t.members {
		at, ok := x.labelIndex[string(jsonbytes.StringContent(m.key))]
		if !ok {
			kept = append(kept, m)
			continue
		}
		if !x.used[at] {
			x.used[at] = true
			kept = append(kept, labelTreeMember(x.labels[at].member))
		}
	}
	t.members = kept
	for at := range x.labels {
		if !x.used[at] {
			kept = append(kept, labelTreeMember(x.labels[at].member))
		}
	}
	t.members = kept
}

// labelTreeMember turns a prepared `"key":"value"` member into a tree member.
func labelTreeMember(member []byte) treeMember {
	keyEnd := jsonbytes.SkipString(member, 0)
	return treeMember{key: member[:keyEnd], value: &tree{raw: member[keyEnd+1:]}}
}

// createdTree builds a missing label target, as writeCreated writes it.
func (x *executor) createdTree(target *labelTarget) *tree {
	if target.labels {
		t, _ := parseTree(x.labelObject, 0)
		return t
	}
	t := &tree{object: true}
	for _, c := range target.children {
		if c.create {
			t.members = append(t.members, treeMember{key: jsonbytes.AppendQuoted(nil, c.key), value: x.createdTree(c)})
		}
	}
	return t
}
