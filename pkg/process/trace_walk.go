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
	"strings"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/provenance"
)

// The walk of one template object against the object it wrote: each output field's Node,
// its source in the template and the parameters substituted into it (Trace's second half).

// walk returns the Node of the output value out, written from the template value tv at tpath
// (inTemplate false: no template field wrote it, and source, when set, is the field whose
// ${{P}} did). target is where object labels go under out; params are the parameters of the
// member names on the path or of the ${{P}} that wrote out.
//
// The template path is tr.path, a stack walk pushes onto and pops, so that a path is written
// out only for a leaf.
func (tr *tracer) walk(tv positions.JSONValue, inTemplate bool, ov positions.JSONValue, target *labelTarget, params []string) *provenance.Node {
	if tr.fields > tr.max {
		return nil
	}
	tmpl, out := tr.tmpl, &tr.out
	kind := out.Kind(ov)
	if inTemplate && kind != '"' && tmpl.Kind(tv) == '"' {
		// A typed ${{P}} wrote this value: everything under it comes from that string.
		refs := tr.references(tmpl.Text(tv))
		if len(refs) > 0 {
			return tr.written(ov, target, tr.source(), concat(params, refs))
		}
	}
	switch {
	case kind == '{' && out.Len(ov) > 0:
		tm := positions.NoValue
		if tmpl.Kind(tv) == '{' {
			tm = tv
		}
		var byRendered map[string]templateKey
		members := tr.sortedMembers(ov)
		defer tr.popMembers(members)
		node := tr.object(len(members))
		for _, m := range members {
			k, v := m.name, m.value
			tr.pushOut(positions.Step{Key: k})
			var child *labelTarget
			if target != nil {
				_, child = target.child([]byte(k))
			}
			if l, ok := tr.labelOf(target, k); ok {
				node.Add(k, tr.leaf(l.source, concat(params, l.params), ""))
				tr.popOut()
				continue
			}
			if inTemplate && tm != positions.NoValue {
				written, keyParams := k, []string(nil)
				tv := tmpl.Member(tm, k)
				ok := tv != positions.NoValue
				if !ok || strings.IndexByte(k, '$') >= 0 {
					// The member's name may be substituted: look it up by the names
					// written, once substituted.
					if byRendered == nil {
						byRendered = tr.keys(tm)
					}
					var key templateKey
					if key, ok = byRendered[k]; ok {
						written, keyParams, tv = key.written, key.params, tmpl.Member(tm, key.written)
					}
				}
				if ok {
					tr.push(positions.Step{Key: written}, tv)
					node.Add(k, tr.walk(tv, true, v, child, concat(params, keyParams)))
					tr.pop()
					tr.popOut()
					continue
				}
			}
			node.Add(k, tr.written(v, child, provenance.Source{Kind: provenance.Engine}, params))
			tr.popOut()
		}
		return node
	case kind == '[' && out.Len(ov) > 0:
		elements := 0
		if tmpl.Kind(tv) == '[' {
			elements = tmpl.Len(tv)
		}
		n := out.Len(ov)
		node := tr.array(n)
		for i := range n {
			v := out.Element(ov, i)
			tr.pushOut(positions.Step{Index: i, IsIndex: true})
			if inTemplate && i < elements {
				te := tmpl.Element(tv, i)
				tr.push(positions.Step{Index: i, IsIndex: true}, te)
				node.Set(i, tr.walk(te, true, v, nil, params))
				tr.pop()
			} else {
				node.Set(i, tr.written(v, nil, provenance.Source{Kind: provenance.Engine}, params))
			}
			tr.popOut()
		}
		return node
	}
	if !inTemplate {
		return tr.leaf(provenance.Source{Kind: provenance.Engine}, params, "")
	}
	var text []byte
	isString := tmpl.Kind(tv) == '"'
	if isString {
		text = tmpl.Text(tv)
		params = concat(params, tr.references(text))
	}
	note := ""
	if tr.plan.dialect == OpenShift && len(params) == 0 {
		// Only a literal the output does not repeat was rewritten.
		unchanged := isString && kind == '"' && bytes.Equal(out.Text(ov), text)
		note = openShiftRewrite(tr.path, unchanged)
	}
	return tr.leaf(tr.source(), params, note)
}

// openShiftRewrite says which rule of OpenShift's processor changed a literal value of the template,
// at the only places it does: the apiVersion of a legacy kind, the namespace. unchanged says
// the output holds the template's string as it is.
func openShiftRewrite(tpath positions.Path, unchanged bool) string {
	if unchanged {
		return ""
	}
	switch p := tpath[min(2, len(tpath)):]; {
	case len(p) == 1 && p[0].Key == "apiVersion":
		return "OpenShift's processor gives a legacy group-less kind its group"
	case len(p) == 1 && p[0].Key == "namespace", len(p) == 2 && p[0].Key == "metadata" && p[1].Key == "namespace":
		return "OpenShift's stripNamespace writes an empty namespace here"
	}
	return ""
}

// written returns the Node of a value no template field maps to member by member: every leaf
// under it has source (labels excepted, which keep their own).
func (tr *tracer) written(ov positions.JSONValue, target *labelTarget, source provenance.Source, params []string) *provenance.Node {
	if tr.fields > tr.max {
		return nil
	}
	out := &tr.out
	switch kind := out.Kind(ov); {
	case kind == '{' && out.Len(ov) > 0:
		members := tr.sortedMembers(ov)
		defer tr.popMembers(members)
		node := tr.object(len(members))
		for _, m := range members {
			tr.pushOut(positions.Step{Key: m.name})
			var child *labelTarget
			if target != nil {
				_, child = target.child([]byte(m.name))
			}
			if l, ok := tr.labelOf(target, m.name); ok {
				node.Add(m.name, tr.leaf(l.source, concat(params, l.params), ""))
			} else {
				node.Add(m.name, tr.written(m.value, child, source, params))
			}
			tr.popOut()
		}
		return node
	case kind == '[' && out.Len(ov) > 0:
		n := out.Len(ov)
		node := tr.array(n)
		for i := range n {
			tr.pushOut(positions.Step{Index: i, IsIndex: true})
			node.Set(i, tr.written(out.Element(ov, i), nil, source, params))
			tr.popOut()
		}
		return node
	}
	return tr.leaf(source, params, "")
}

// leaf returns the Node of a leaf field, or in a flat trace writes its Field (and returns nil).
func (tr *tracer) leaf(source provenance.Source, params []string, note string) *provenance.Node {
	tr.fields++
	if tr.flat {
		tr.flatFields = append(tr.flatFields, provenance.Field{Path: tr.alloc.String(tr.outPath), Source: source, Parameters: params, Note: note})
		return nil
	}
	n := tr.alloc.Leaf(source, params)
	n.Field.Note = note
	return n
}

// labelOf is the source of the label key, when target is a label map the engine merged
// labels into.
func (tr *tracer) labelOf(target *labelTarget, key string) (labelSource, bool) {
	if target == nil || !target.labels {
		return labelSource{}, false
	}
	l, ok := tr.labels[key]
	return l, ok
}

// object and array return the Node of an object of n members or an array of n elements; nil
// in a flat trace, which makes no Nodes (Node.Add and Node.Set do nothing on nil).
func (tr *tracer) object(n int) *provenance.Node {
	if tr.flat {
		return nil
	}
	return tr.alloc.Object(n)
}

func (tr *tracer) array(n int) *provenance.Node {
	if tr.flat {
		return nil
	}
	return tr.alloc.Array(n)
}

// templateKey is a member name of a template object as written, and the parameters
// substituted into it.
type templateKey struct {
	written string
	params  []string
}

// keys maps the member names of a template object, once substituted, to the names written.
func (tr *tracer) keys(tm positions.JSONValue) map[string]templateKey {
	n := tr.tmpl.Len(tm)
	keys := make(map[string]templateKey, n)
	for i := range n {
		name, _ := tr.tmpl.MemberAt(tm, i)
		k := string(name)
		rendered, params := tr.render(k)
		keys[rendered] = templateKey{written: k, params: params}
	}
	return keys
}

// render substitutes a member name as the engine does (as text) and names the parameters.
func (tr *tracer) render(s string) (string, []string) {
	if strings.IndexByte(s, '$') < 0 {
		return s, nil
	}
	content := []byte(s)
	segs, _ := tr.sx.split(content, nil)
	var out []byte
	var params []string
	for i := range segs {
		seg := &segs[i]
		if seg.ref && seg.param >= 0 && !(tr.plan.dialect == OpenShift && seg.typed && len(segs) > 1) {
			out = append(out, tr.values[seg.param]...)
			params = appendName(params, tr.names[seg.param])
			continue
		}
		out = append(out, seg.text(content)...)
	}
	return string(out), params
}

// references names the parameters substituted into a string value, without writing it.
func (tr *tracer) references(content []byte) []string {
	if bytes.IndexByte(content, '$') < 0 {
		return nil
	}
	tr.segs, _ = tr.sx.split(content, tr.segs[:0])
	var params []string
	first := -1
	for i := range tr.segs {
		seg := &tr.segs[i]
		if seg.ref && seg.param >= 0 && !(tr.plan.dialect == OpenShift && seg.typed && len(tr.segs) > 1) {
			params = appendName(params, tr.names[seg.param])
			if first < 0 {
				first = seg.param
			}
		}
	}
	if len(params) == 1 {
		// Fields share the list of one name (nothing appends to a field's list in place).
		if one, ok := tr.single[first]; ok {
			return one
		}
		tr.single[first] = params[:1:1]
	}
	return params
}

// concat returns a and b together without changing a's array, which other fields share.
func concat(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := a[:len(a):len(a)]
	for _, n := range b {
		out = appendName(out, n)
	}
	return out
}

// appendName adds a parameter name once.
func appendName(names []string, name string) []string {
	for _, n := range names {
		if n == name {
			return names
		}
	}
	return append(names, name)
}
