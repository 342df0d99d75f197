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
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Compile validates a Template and compiles it into a Plan. All problems are returned at once.
// In the OpenShift dialect, references to undeclared parameters are warnings of the Plan
// (see Result.Warnings) instead of errors.
func Compile(t *templates.Template, d Dialect) (*Plan, field.ErrorList) {
	return compile(t, d, nil)
}

// compile is Compile, with the memory of a disposed plan to reuse when m is set
// (CompileDisposable); the plan is returned with its errors, for Dispose.
func compile(t *templates.Template, d Dialect, m *planMemory) (*Plan, field.ErrorList) {
	c := newCompiler(t, d, m)
	// Size the program once: each reference costs a few ops, and literals take about the
	// objects' compacted bytes (the arena is sized at the first object: reserveArena). The
	// corpus's 394 plans hold 43k ops for 14k dollars and 1.7k objects: 3 ops a dollar and 6
	// an object outgrow that in 6 of them, and reserve a fifth less than 4 and 8 did.
	dollars := 0
	for _, o := range t.Objects {
		c.objectBytes += len(o.Raw)
		dollars += bytes.Count(o.Raw, []byte{'$'})
	}
	c.plan.ops = c.plan.memory.takeOps(3*dollars + 6*len(t.Objects) + 16)
	if d == OpenShift {
		c.redeclarationWarnings()
	}
	c.compileText()
	if len(t.Rules) > 0 && d == Stencil {
		c.compileRules()
	}
	c.plan.objects = c.compileObjects(c.plan.memory.takeObjects(len(t.Objects)), t.Objects, "objects", true)
	c.plan.generators = c.compileObjects(make([]compiledObject, 0, len(t.Generators)), t.Generators, "generators", false)
	c.plan.transformers = c.compileObjects(make([]compiledObject, 0, len(t.Transformers)), t.Transformers, "transformers", false)
	c.plan.transformerOverrides = c.compileObjects(make([]compiledObject, 0, len(t.TransformerOverrides)), t.TransformerOverrides, "transformerOverrides", false)
	c.checkTotalCost()
	c.plan.warnings = c.warnings.list()
	c.release()
	if len(c.errs) > 0 && m == nil {
		return nil, c.errs
	}
	return c.plan, c.errs
}

// compiler holds the state of one Compile call.
type compiler struct {
	plan     *Plan
	template *templates.Template
	sx       *syntax
	errs     field.ErrorList
	warnings warningSet
	// forceSlow sends every object through the slow path; tests compare both paths with it.
	forceSlow bool
	// objectBytes is the size of the template's objects as given, for reserveArena;
	// compacted is the size of the last object compileObject compacted.
	objectBytes, compacted int
	// jumpsEnd is past the last op that may be a jump (emitJump): the ops from it on hold
	// none, so that merging or splitting an op before them moves no jump's target.
	jumpsEnd int
	// scratch is reused by every object compiled, and by the next Compile.
	*scratch
}

// scratch is the working memory of compiling objects; none of it ends up in a plan.
type scratch struct {
	src       []byte
	structure structure
	walker    walker
	// textSegs are the segments of the plain-text string textTemplate compiles.
	textSegs []segment
	// grouped and quotedGroup hold an OpenShift object's apiVersion with its group (header).
	grouped, quotedGroup []byte
}

// scratchPool keeps the working memory of Compile calls, so that processing templates given
// in requests does not allocate it again each time.
var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// release returns the compiler's working memory to the pool.
func (c *compiler) release() {
	s := c.scratch
	c.scratch = nil
	// Drop what points into the template or the plan before pooling.
	s.walker = walker{path: s.walker.path[:0], keySegs: s.walker.keySegs[:0], valueSegs: s.walker.valueSegs[:0]}
	if s.tooLargeToPool() {
		return
	}
	scratchPool.Put(s)
}

// The paths of a template's labels in each dialect, shared by every plan: a Path never
// changes, its children point at it.
var objectLabelsPath, openShiftLabelsPath = field.NewPath("objectLabels"), field.NewPath("labels")

// newCompiler starts compiling t; m, when set, is the memory of disposed plans, which the
// plan takes what it needs from (and gives back in Dispose).
func newCompiler(t *templates.Template, d Dialect, m *planMemory) *compiler {
	params, index, errs := compileParameters(t.Parameters, d, m)
	labelsPath := objectLabelsPath
	if d == OpenShift {
		labelsPath = openShiftLabelsPath
	}
	return &compiler{
		plan: &Plan{
			dialect:    d,
			params:     params,
			index:      index,
			usage:      m.takeUsage(len(params)),
			labelsPath: labelsPath,
			item:       -1,
			memory:     m,
		},
		template: t,
		sx:       &syntax{dialect: d, params: index},
		errs:     errs,
		scratch:  scratchPool.Get().(*scratch),
	}
}

// compileText compiles the message and the template's object labels.
func (c *compiler) compileText() {
	c.plan.message = c.textTemplate(c.template.Message, func() *field.Path { return field.NewPath("message") })
	keys := make([]string, 0, len(c.template.ObjectLabels))
	for k := range c.template.ObjectLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c.plan.labels = make([]labelTemplate, 0, len(keys))
	for _, k := range keys {
		path := func() *field.Path { return c.plan.labelsPath.Key(k) }
		l := labelTemplate{
			key:   c.textTemplate(k, path),
			value: c.textTemplate(c.template.ObjectLabels[k], path),
		}
		for _, parts := range [2][]textPart{l.key, l.value} {
			for _, part := range parts {
				l.substituted = l.substituted || part.param >= 0
			}
		}
		switch {
		case l.substituted:
		case c.plan.dialect == OpenShift:
			if msg := invalidLabel(k, c.template.ObjectLabels[k], c.plan.labelsPath); msg != "" {
				c.warnings.add(msg, c.plan.labelsPath.String())
			}
		default:
			c.errs = append(c.errs, validateLabels(map[string]string{k: c.template.ObjectLabels[k]}, c.plan.labelsPath)...)
		}
		c.plan.labels = append(c.plan.labels, l)
	}
	c.plan.fixLabels()
}

// textTemplate compiles a plain-text string. Typed references substitute as text there; in
// the OpenShift dialect ${{P}} substitutes only as the whole string, as in OpenShift.
func (c *compiler) textTemplate(s string, path func() *field.Path) []textPart {
	// content is only read: a view of s, not a copy, and the literal parts are parts of s.
	content := unsafe.Slice(unsafe.StringData(s), len(s))
	segs, _ := c.sx.split(content, c.textSegs[:0])
	c.textSegs = segs
	var parts []textPart
	if len(segs) > 0 {
		parts = make([]textPart, 0, len(segs))
	}
	for i := range segs {
		seg := &segs[i]
		param := -1
		if seg.ref {
			switch {
			case seg.param < 0:
				c.undeclared(content, seg, path)
			case c.plan.dialect == OpenShift && seg.typed && len(segs) > 1:
				c.warnings.add(fmt.Sprintf("%s is not substituted: OpenShift substitutes ${{%s}} only as a whole string", seg.text(content), seg.name(content)), path().String())
			default:
				param = seg.param
			}
		}
		text := s[seg.start:seg.end]
		if param < 0 && len(parts) > 0 && parts[len(parts)-1].param < 0 {
			parts[len(parts)-1].literal += text
			continue
		}
		if param >= 0 {
			text = ""
		}
		parts = append(parts, textPart{literal: text, param: param})
	}
	return parts
}

// undeclared reports a reference to an undeclared parameter: an error in our dialect, kept as
// written with a warning in OpenShift's.
func (c *compiler) undeclared(content []byte, seg *segment, path func() *field.Path) {
	text, name := seg.text(content), seg.name(content)
	if c.plan.dialect == OpenShift {
		c.warnings.add(fmt.Sprintf("%s refers to the undeclared parameter %s and is kept as written", text, name), path().String())
		return
	}
	c.errs = append(c.errs, field.Invalid(path(), string(text), fmt.Sprintf("%s is not a declared parameter", name)))
}

// compileObjects compiles objects (or transformer configs, which get no labels, namespace
// stripping or groupification) and adds their errors; into out's room, which holds them.
func (c *compiler) compileObjects(out []compiledObject, raws []runtime.RawExtension, list string, templateObjects bool) []compiledObject {
	for i := range raws {
		raw := raws[i].Raw
		if raw == nil && raws[i].Object != nil {
			var err error
			if raw, err = json.Marshal(raws[i].Object); err != nil {
				c.errs = append(c.errs, field.Invalid(objectPath{list, i}.path(), "", err.Error()))
				continue
			}
		}
		var expr *objectExpressions
		if templateObjects && c.plan.dialect == Stencil {
			var ok bool
			if raw, expr, ok = c.objectExpressions(raw, objectPath{list, i}); !ok {
				continue
			}
		}
		repeated := expr != nil && expr.forEach != nil
		if repeated {
			c.sx.params[itemName], c.sx.params[indexName] = c.plan.item, c.plan.item+1
		}
		obj, errs := c.compileObject(raw, objectPath{list, i}, templateObjects)
		if repeated {
			delete(c.sx.params, itemName)
			delete(c.sx.params, indexName)
		}
		c.errs = append(c.errs, errs...)
		if len(errs) == 0 {
			obj.expr = expr
			out = append(out, obj)
			// The output is the compacted objects with the values and labels written in.
			c.plan.outputSize += c.compacted
		}
	}
	return out
}

// reserveArena sizes the plan's arena when the first object is compacted: the literals take
// about the objects' bytes without their layout, and how much of a file is layout (half of
// the corpus's indented JSON files, none of a compact request body) is told by the first
// object's compaction, never more than the objects' bytes as given. An estimate short of it only costs the arena's growth: ops hold offsets.
func (c *compiler) reserveArena(raw, compacted int) {
	if cap(c.plan.arena) > 0 || raw == 0 {
		return
	}
	size := int(int64(c.objectBytes) * int64(compacted) / int64(raw))
	c.plan.arena = c.plan.memory.takeArena(size + size/8 + 64)
}

// warningSet collects warnings, one per distinct message, with the first place and a count.
type warningSet struct {
	order []string
	seen  map[string]*warning
}

type warning struct {
	first string
	more  int
}

func (w *warningSet) add(msg, path string) {
	if existing, ok := w.seen[msg]; ok {
		existing.more++
		return
	}
	if w.seen == nil {
		w.seen = map[string]*warning{}
	}
	w.seen[msg] = &warning{first: path}
	w.order = append(w.order, msg)
}

func (w *warningSet) list() []string {
	var out []string
	for _, msg := range w.order {
		at := w.seen[msg]
		s := fmt.Sprintf("%s: %s", at.first, msg)
		if at.more > 0 {
			s += fmt.Sprintf(" (and %d more places)", at.more)
		}
		out = append(out, s)
	}
	return out
}
