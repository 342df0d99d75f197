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
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/provenance"
)

// origin is the template object that wrote an output object: its index in objects, and for a
// for-each object the element and the text of ITEM for it.
type origin struct {
	object  int
	element int
	item    string
}

func (x *executor) originOf(o *compiledObject) origin {
	at := origin{object: o.at.index, element: x.element}
	if x.element >= 0 {
		at.item = x.values[x.plan.item].raw
	}
	return at
}

// Trace returns the provenance of each object an Execute with Request.Provenance wrote (res),
// decoded into objects, and how many leaf fields they have: for every leaf, the template field
// that wrote it, the parameters substituted into it (or into a member name on its path, or the
// whole ${{P}} that wrote its value) and, for labels, the object label or the caller's label.
// t is the template the plan was compiled from and labels the request's. It refuses, with
// provenance.ErrTooManyFields, to describe more than max leaf fields.
//
// It reads the template again rather than asking the plan, so that Execute itself keeps
// nothing for it: only a request that asks pays, and what it pays is one walk of each
// template object beside the output.
func (p *Plan) Trace(t *templates.Template, labels map[string]string, res *Result, objects []map[string]any, max int) ([]provenance.ObjectSeed, int, error) {
	if res.origins == nil || len(res.origins) != len(objects) {
		return nil, 0, fmt.Errorf("the result was not executed with provenance")
	}
	if max <= 0 {
		max = provenance.DefaultMaxFields
	}
	tr := &tracer{plan: p, max: max, names: make([]string, len(p.usage)), values: make([]string, len(p.usage)),
		templates: map[int]any{}}
	for i := range p.params {
		tr.names[i] = p.params[i].Name
		if i < len(res.Parameters) {
			tr.values[i] = res.Parameters[i].Value
		}
	}
	tr.sx = &syntax{dialect: p.dialect, params: make(map[string]int, len(p.index)+2)}
	for k, v := range p.index {
		tr.sx.params[k] = v
	}
	if p.item >= 0 {
		tr.names[p.item], tr.names[p.item+1] = itemName, indexName
	}
	tr.labelSources(t, labels)
	seeds := make([]provenance.ObjectSeed, len(objects))
	for i, obj := range objects {
		at := res.origins[i]
		raw, err := tr.templateObject(t, at.object)
		if err != nil {
			return nil, 0, err
		}
		tr.repeated(at)
		tr.path = append(tr.path[:0], positions.Step{Key: "objects"}, positions.Step{Index: at.object, IsIndex: true})
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		targets := labelTargetsFor(p.dialect, []byte(apiVersion), []byte(kind))
		seeds[i] = provenance.ObjectSeed{Root: tr.walk(raw, true, obj, targets, nil), Source: tr.source()}
		if at.element >= 0 {
			e := int32(at.element)
			seeds[i].Element = &e
		}
		if tr.fields > max {
			return nil, tr.fields, provenance.ErrTooManyFields
		}
	}
	return seeds, tr.fields, nil
}

// tracer holds the state of one Trace.
type tracer struct {
	plan *Plan
	sx   *syntax
	// names and values are the parameters', by index, ITEM and INDEX included.
	names, values []string
	// labels are the sources of the labels the engine merges into label maps, by key.
	labels map[string]labelSource
	// templates are the template's objects decoded, by index.
	templates map[int]any
	fields    int
	max       int
	// path is the template path of the value walk is at.
	path positions.Path
	// segs is the scratch of references.
	segs []segment
}

type labelSource struct {
	source provenance.Source
	params []string
}

// labelSources finds where each object label came from: the template's own labels
// (substituted), or the caller's, which win.
func (tr *tracer) labelSources(t *templates.Template, caller map[string]string) {
	tr.labels = map[string]labelSource{}
	keys := make([]string, 0, len(t.ObjectLabels))
	for k := range t.ObjectLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i >= len(tr.plan.labels) {
			break
		}
		l := tr.plan.labels[i]
		key, _ := renderText(l.key, tr.values, maxLabelBytes)
		var params []string
		for _, part := range append(l.key[:len(l.key):len(l.key)], l.value...) {
			if part.param >= 0 {
				params = appendName(params, tr.names[part.param])
			}
		}
		tr.labels[key] = labelSource{source: provenance.Source{Kind: provenance.ObjectLabels, Path: tr.plan.labelsPath.Key(k).String()}, params: params}
	}
	for k := range caller {
		tr.labels[k] = labelSource{source: provenance.Source{Kind: provenance.RequestLabels, Path: "labels[" + k + "]"}}
	}
}

// templateObject returns the template's object i decoded.
func (tr *tracer) templateObject(t *templates.Template, i int) (any, error) {
	if v, ok := tr.templates[i]; ok {
		return v, nil
	}
	if i < 0 || i >= len(t.Objects) {
		return nil, fmt.Errorf("objects[%d] is not in the template", i)
	}
	raw := t.Objects[i].Raw
	var v any
	if raw != nil {
		obj, err := jsonbytes.DecodeObject(raw)
		if err != nil {
			// Member names repeated (the OpenShift dialect tolerates them): the last value is
			// the one used, as encoding/json reads it.
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("objects[%d]: %w", i, err)
			}
		} else {
			v = obj
		}
	}
	tr.templates[i] = v
	return v, nil
}

// repeated makes ITEM and INDEX references of a for-each object's element, or none.
func (tr *tracer) repeated(at origin) {
	delete(tr.sx.params, itemName)
	delete(tr.sx.params, indexName)
	if at.element < 0 || tr.plan.item < 0 {
		return
	}
	tr.sx.params[itemName], tr.sx.params[indexName] = tr.plan.item, tr.plan.item+1
	tr.values[tr.plan.item], tr.values[tr.plan.item+1] = at.item, strconv.Itoa(at.element)
}

// walk returns the Node of the output value out, written from the template value tv at tpath
// (inTemplate false: no template field wrote it, and source, when set, is the field whose
// ${{P}} did). target is where object labels go under out; params are the parameters of the
// member names on the path or of the ${{P}} that wrote out.
//
// The template path is tr.path, a stack walk pushes onto and pops, so that a path is written
// out only for a leaf.
func (tr *tracer) walk(tv any, inTemplate bool, out any, target *labelTarget, params []string) *provenance.Node {
	if tr.fields > tr.max {
		return nil
	}
	if s, ok := tv.(string); ok && inTemplate {
		if _, isString := out.(string); !isString {
			// A typed ${{P}} wrote this value: everything under it comes from that string.
			refs := tr.references(s)
			if len(refs) > 0 {
				return tr.written(out, target, tr.source(), concat(params, refs))
			}
		}
	}
	switch o := out.(type) {
	case map[string]any:
		if len(o) > 0 {
			tm, _ := tv.(map[string]any)
			var keys map[string]templateKey
			node := &provenance.Node{Members: make(map[string]*provenance.Node, len(o))}
			for k, v := range o {
				var child *labelTarget
				if target != nil {
					_, child = target.child([]byte(k))
				}
				if target != nil && target.labels {
					if l, ok := tr.labels[k]; ok {
						node.Members[k] = tr.leaf(l.source, concat(params, l.params))
						continue
					}
				}
				if inTemplate && tm != nil {
					written, keyParams, ok := k, []string(nil), false
					if tv, ok = tm[k]; !ok || strings.IndexByte(k, '$') >= 0 {
						// The member's name may be substituted: look it up by the names
						// written, once substituted.
						if keys == nil {
							keys = tr.keys(tm)
						}
						var key templateKey
						if key, ok = keys[k]; ok {
							written, keyParams, tv = key.written, key.params, tm[key.written]
						}
					}
					if ok {
						tr.path = append(tr.path, positions.Step{Key: written})
						node.Members[k] = tr.walk(tv, true, v, child, concat(params, keyParams))
						tr.path = tr.path[:len(tr.path)-1]
						continue
					}
				}
				node.Members[k] = tr.written(v, child, provenance.Source{Kind: provenance.Engine}, params)
			}
			return node
		}
	case []any:
		if len(o) > 0 {
			ta, _ := tv.([]any)
			node := &provenance.Node{Elements: make([]*provenance.Node, len(o))}
			for i, v := range o {
				if inTemplate && i < len(ta) {
					tr.path = append(tr.path, positions.Step{Index: i, IsIndex: true})
					node.Elements[i] = tr.walk(ta[i], true, v, nil, params)
					tr.path = tr.path[:len(tr.path)-1]
				} else {
					node.Elements[i] = tr.written(v, nil, provenance.Source{Kind: provenance.Engine}, params)
				}
			}
			return node
		}
	}
	if !inTemplate {
		return tr.leaf(provenance.Source{Kind: provenance.Engine}, params)
	}
	if s, ok := tv.(string); ok {
		params = concat(params, tr.references(s))
	}
	node := tr.leaf(tr.source(), params)
	if tr.plan.dialect == OpenShift && len(params) == 0 {
		node.Field.Note = openShiftRewrite(tr.path, tv, out)
	}
	return node
}

// openShiftRewrite says which rule of OpenShift's processor changed a literal value of the template,
// at the only places it does: the apiVersion of a legacy kind, the namespace.
func openShiftRewrite(tpath positions.Path, tv, out any) string {
	if s, isString := tv.(string); isString {
		if o, ok := out.(string); ok && o == s {
			return ""
		}
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
func (tr *tracer) written(out any, target *labelTarget, source provenance.Source, params []string) *provenance.Node {
	if tr.fields > tr.max {
		return nil
	}
	switch o := out.(type) {
	case map[string]any:
		if len(o) > 0 {
			node := &provenance.Node{Members: make(map[string]*provenance.Node, len(o))}
			for k, v := range o {
				var child *labelTarget
				if target != nil {
					_, child = target.child([]byte(k))
					if target.labels {
						if l, ok := tr.labels[k]; ok {
							node.Members[k] = tr.leaf(l.source, concat(params, l.params))
							continue
						}
					}
				}
				node.Members[k] = tr.written(v, child, source, params)
			}
			return node
		}
	case []any:
		if len(o) > 0 {
			node := &provenance.Node{Elements: make([]*provenance.Node, len(o))}
			for i, v := range o {
				node.Elements[i] = tr.written(v, nil, source, params)
			}
			return node
		}
	}
	return tr.leaf(source, params)
}

func (tr *tracer) leaf(source provenance.Source, params []string) *provenance.Node {
	tr.fields++
	return provenance.Leaf(source, params)
}

func (tr *tracer) source() provenance.Source {
	return provenance.Source{Kind: provenance.Template, Path: tr.path.String()}
}

// templateKey is a member name of a template object as written, and the parameters
// substituted into it.
type templateKey struct {
	written string
	params  []string
}

// keys maps the member names of a template object, once substituted, to the names written.
func (tr *tracer) keys(tm map[string]any) map[string]templateKey {
	keys := make(map[string]templateKey, len(tm))
	for k := range tm {
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
func (tr *tracer) references(s string) []string {
	if strings.IndexByte(s, '$') < 0 {
		return nil
	}
	content := []byte(s)
	tr.segs, _ = tr.sx.split(content, tr.segs[:0])
	var params []string
	for i := range tr.segs {
		seg := &tr.segs[i]
		if seg.ref && seg.param >= 0 && !(tr.plan.dialect == OpenShift && seg.typed && len(tr.segs) > 1) {
			params = appendName(params, tr.names[seg.param])
		}
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

// ConfigParameters names the parameters substituted into the generator or transformer config
// i of list ("generators" or "transformers"), as the plan compiled it.
func (p *Plan) ConfigParameters(list string, i int) []string {
	configs := p.transformers
	if list == "generators" {
		configs = p.generators
	}
	var names []string
	for _, c := range configs {
		if c.at.index != i {
			continue
		}
		for _, o := range p.ops[c.from:c.to] {
			switch o.code {
			case opText, opJSON, opSkipIfNull:
				if int(o.param) >= 0 && int(o.param) < len(p.params) {
					names = appendName(names, p.params[o.param].Name)
				}
			}
		}
	}
	return names
}
