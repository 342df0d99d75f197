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
	"sort"
	"strconv"

	"stencil.dev/stencil/pkg/apis/templates"
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
// and how many leaf fields they have: for every leaf, the template field
// that wrote it, the parameters substituted into it (or into a member name on its path, or the
// whole ${{P}} that wrote its value) and, for labels, the object label or the caller's label.
// t is the template the plan was compiled from and labels the request's.
//
// It reads the template again rather than asking the plan, so that Execute itself keeps
// nothing for it: only a request that asks pays, and what it pays is one walk of each
// template object's bytes beside the output's bytes, decoding neither.
func (p *Plan) Trace(t *templates.Template, labels map[string]string, res *Result, opts TraceOptions) ([]provenance.ObjectSeed, int, error) {
	max, x := opts.Max, opts.Locator
	if res.origins == nil || len(res.origins) != len(res.Objects) {
		return nil, 0, fmt.Errorf("the result was not executed with provenance")
	}
	if max <= 0 {
		max = provenance.DefaultMaxFields
	}
	tr := &tracer{plan: p, max: max, flat: opts.Flat, mask: opts.Mask, names: make([]string, len(p.usage)), values: make([]string, len(p.usage)),
		templates: map[int]*positions.JSONTree{}, alloc: &provenance.Alloc{}, single: map[int][]string{}}
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
	if index, ok := x.(*positions.Index); ok {
		if root, ok := index.Root(); ok {
			tr.index, tr.places, tr.document = index, []positions.Place{root}, index.Document()
		}
	}
	tr.labelSources(t, labels)
	seeds := make([]provenance.ObjectSeed, len(res.Objects))
	for i, raw := range res.Objects {
		at := res.origins[i]
		if !tr.out.Read(raw) || tr.out.Kind(tr.out.Root()) != '{' {
			return nil, 0, fmt.Errorf("object %d of the output is not a JSON object", i)
		}
		root, err := tr.templateObject(t, at.object, at.element >= 0)
		if err != nil {
			return nil, 0, err
		}
		tr.repeated(at)
		tr.path, tr.places, tr.pathText, tr.ends = tr.path[:0], tr.places[:min(1, len(tr.places))], tr.pathText[:0], tr.ends[:0]
		tr.outPath, tr.outEnds = tr.outPath[:0], tr.outEnds[:0]
		objectsAt, objectAt := positions.NoValue, positions.NoValue
		if tr.tmpl == tr.document {
			objectsAt = tr.document.Member(tr.document.Root(), "objects")
			objectAt = root
		}
		tr.push(positions.Step{Key: "objects"}, objectsAt)
		tr.push(positions.Step{Index: at.object, IsIndex: true}, objectAt)
		id := tr.identity()
		targets := labelTargetsFor(p.dialect, []byte(id.APIVersion), []byte(id.Kind))
		seeds[i] = provenance.ObjectSeed{Root: tr.walk(root, true, tr.out.Root(), targets, nil), Source: tr.source(), ID: id}
		if tr.flat {
			seeds[i].Fields = tr.alloc.Fields(tr.flatFields)
			tr.flatFields = tr.flatFields[:0]
		}
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

// TraceOptions are what Plan.Trace is asked.
type TraceOptions struct {
	// Max bounds the leaf fields described: past it Trace refuses with
	// provenance.ErrTooManyFields. 0 means provenance.DefaultMaxFields.
	Max int
	// Locator, when it is the Index of the file the template was read from, places each
	// template field as the walk goes (one step from its parent's place); other fields are
	// placed by the Map (provenance.Locate).
	Locator provenance.Locator
	// Flat writes each object's fields as the Map lists them (ObjectSeed.Fields), output
	// paths and all, instead of Nodes, for objects no step will change: the map is then
	// made in this one walk. Mask writes a member name of such a path (secrets masked).
	Flat bool
	Mask func(string) string
}

// tracer holds the state of one Trace.
type tracer struct {
	plan *Plan
	// flat, mask and flatFields are TraceOptions.Flat's: the fields of the object walked so
	// far, in order, each at the output path outPath (outEnds where its prefixes end).
	flat       bool
	mask       func(string) string
	flatFields []provenance.Field
	outPath    []byte
	outEnds    []int
	sx         *syntax
	// names and values are the parameters', by index, ITEM and INDEX included.
	names, values []string
	// labels are the sources of the labels the engine merges into label maps, by key.
	labels map[string]labelSource
	// tmpl is the structure of the template object walk is in (its bytes, not decoded);
	// templates are those of the for-each objects, by index, each of which writes an object
	// per element. Others write one object each: their structure is read into once, into
	// scratch, so that a trace of any size holds one.
	tmpl      *positions.JSONTree
	templates map[int]*positions.JSONTree
	scratch   positions.JSONTree
	// document is the tree of the file the template was read from (its Index's), in which
	// a template object that is the file's own bytes is walked: its values are their own
	// places there.
	document *positions.JSONTree
	fields   int
	max      int
	// path is the template path of the value walk is at; places, when the template was read
	// from a file (index), are the places in it of path's prefixes, the file's root first.
	// pathText is path as Path.String writes it, ends where each of its prefixes ends in it;
	// line is the line of the last place found, where the next is looked for first.
	path     positions.Path
	index    *positions.Index
	places   []positions.Place
	pathText []byte
	ends     []int
	line     int
	// segs is the scratch of references.
	segs []segment
	// out is the structure of the output object walk is in, read from the engine's bytes.
	out positions.JSONTree
	// alloc makes the Nodes and source paths; members is the scratch stack of sorted
	// members; single holds, by parameter, the list of that one name, which most fields
	// share.
	alloc   *provenance.Alloc
	members []outMember
	single  map[int][]string
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

// templateObject makes tr.tmpl the structure of the template's object i and returns its
// root, kept for the next element of a for-each object (repeated). The plan was compiled from
// these bytes, so they are JSON; a repeated member name is found as encoding/json reads it
// (the last), which the OpenShift dialect tolerates.
func (tr *tracer) templateObject(t *templates.Template, i int, repeated bool) (positions.JSONValue, error) {
	if x, ok := tr.templates[i]; ok {
		tr.tmpl = x
		return x.Root(), nil
	}
	if i < 0 || i >= len(t.Objects) {
		return positions.NoValue, fmt.Errorf("objects[%d] is not in the template", i)
	}
	if tr.document != nil && t.Objects[i].Raw != nil {
		objects := tr.document.Member(tr.document.Root(), "objects")
		if v := tr.document.Element(objects, i); v != positions.NoValue && tr.document.Holds(v, t.Objects[i].Raw) {
			tr.tmpl = tr.document
			return v, nil
		}
	}
	x := &tr.scratch
	if repeated {
		x = &positions.JSONTree{}
	}
	tr.tmpl = x
	raw := t.Objects[i].Raw
	if raw == nil {
		x.Read(nil)
		return positions.NoValue, nil
	}
	if !x.Read(raw) {
		return positions.NoValue, fmt.Errorf("objects[%d] is not JSON", i)
	}
	if repeated {
		tr.templates[i] = x
	}
	return x.Root(), nil
}

// identity reads the apiVersion, kind, namespace and name of the output object tr.out.
func (tr *tracer) identity() provenance.ObjectID {
	out := &tr.out
	text := func(v positions.JSONValue, name string) string {
		if m := out.Member(v, name); out.Kind(m) == '"' {
			return tr.alloc.String(out.Text(m))
		}
		return ""
	}
	root := out.Root()
	meta := out.Member(root, "metadata")
	return provenance.ObjectID{APIVersion: text(root, "apiVersion"), Kind: text(root, "kind"), Namespace: text(meta, "namespace"), Name: text(meta, "name")}
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
