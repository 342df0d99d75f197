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

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// compileObject compiles one object, or one transformer config when templateObject is false.
// An object whose shape depends on parameter values is compiled again for the slow path.
func (c *compiler) compileObject(raw []byte, at objectPath, templateObject bool) (compiledObject, field.ErrorList) {
	path := at.path

	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || string(trimmed) == "null" {
		return compiledObject{}, field.ErrorList{field.Required(path(), "an object is needed here")}
	}
	src, err := c.structure.compact(&c.src, raw)
	if err != nil && templateObject && c.plan.dialect == OpenShift {
		if _, duplicate := err.(*duplicateNameError); duplicate {
			src, err = c.lastMemberWins(raw, path())
		}
	}
	if err != nil {
		return compiledObject{}, field.ErrorList{field.Invalid(path(), "", "not valid JSON: "+err.Error())}
	}
	if src[0] != '{' {
		return compiledObject{}, field.ErrorList{field.Invalid(path(), "", "must be a JSON object")}
	}
	// Kubernetes reads numbers as int64 or float64: a larger one would come out as it is,
	// and kubectl could not read the answer.
	if !c.structure.numbersFit {
		return compiledObject{}, templates.NumberErrors(src, path())
	}
	c.compacted = len(src)
	c.reserveArena(len(raw), len(src))
	p := c.plan
	start := c.newWalker(src, at, false).mark()
	for slow := c.forceSlow; ; slow = true {
		w := c.newWalker(src, at, slow)
		cx := walkContext{envIndex: -1}
		if templateObject {
			cx.top = true
			if errs := w.header(&cx); len(errs) > 0 {
				return compiledObject{}, errs
			}
		}
		if !w.object(0, len(src), cx) {
			w.emitLit(src)
		}
		if w.needSlow && !w.slow {
			w.rewind(start)
			continue
		}
		if len(w.errs) > 0 {
			w.rewind(start)
			return compiledObject{}, w.errs
		}
		for _, warn := range w.warnings {
			c.warnings.add(warn.message, warn.path)
		}
		return compiledObject{from: start.ops, to: len(p.ops), slow: w.slow && templateObject, at: at}, nil
	}
}

// newWalker returns the compiler's walker, reset for the object src.
func (c *compiler) newWalker(src []byte, root objectPath, slow bool) *walker {
	w := &c.walker
	*w = walker{c: c, src: src, st: &c.structure, root: root, slow: slow,
		path: w.path[:0], keySegs: w.keySegs[:0], valueSegs: w.valueSegs[:0], barrier: len(c.plan.ops)}
	return w
}

// target returns the index of a label target in the plan's table.
func (c *compiler) target(t *labelTarget) uint32 {
	for i, known := range c.plan.targets {
		if known == t {
			return uint32(i)
		}
	}
	c.plan.targets = append(c.plan.targets, t)
	return uint32(len(c.plan.targets) - 1)
}

// header checks the object's kind and apiVersion and, when they are literals, decides where
// its labels go and its OpenShift group. A parameterised kind or apiVersion sends the object
// to the slow path, which decides after substitution.
func (w *walker) header(cx *walkContext) field.ErrorList {
	var raws [2][]byte
	hasMetadata := false
	forEachMemberOf(w.src, 0, w.st, func(key []byte, at, end int) {
		switch string(key) {
		case `"kind"`:
			raws[0] = w.src[at:end]
		case `"apiVersion"`:
			raws[1] = w.src[at:end]
		case `"metadata"`:
			hasMetadata = true
		}
	})
	cx.bareTop = !hasMetadata && w.c.plan.dialect == OpenShift
	var errs field.ErrorList
	var values [2][]byte
	dynamic := false
	for i, name := range [2]string{"kind", "apiVersion"} {
		raw := raws[i]
		switch {
		case raw == nil:
			errs = append(errs, field.Required(w.root.path().Child(name), ""))
		case raw[0] != '"':
			errs = append(errs, field.Invalid(w.root.path().Child(name), string(raw), "must be a string"))
		case w.c.sx.hasReference(jsonbytes.StringContent(raw)):
			dynamic = true
		case len(raw) == 2:
			errs = append(errs, field.Required(w.root.path().Child(name), ""))
		default:
			values[i] = jsonbytes.StringContent(raw)
		}
	}
	if len(errs) > 0 || dynamic || w.slow {
		w.slow = w.slow || dynamic
		return errs
	}
	kind, apiVersion := values[0], values[1]
	cx.targets = labelTargetsFor(w.c.plan.dialect, apiVersion, kind)
	if w.c.plan.dialect == OpenShift {
		if group, ok := legacyGroup(apiVersion, kind); ok {
			// groupify's apiVersion, quoted, in the compiler's scratch: the walker copies it
			// into the plan, and the next object's header writes over it.
			grouped := append(append(append(w.c.grouped[:0], group...), '/'), apiVersion...)
			w.apiVersion = jsonbytes.AppendQuoted(w.c.quotedGroup[:0], grouped)
			w.c.grouped, w.c.quotedGroup = grouped, w.apiVersion
		}
	}
	return nil
}

// walkerWarning is a warning found while compiling an object, kept until the object is done.
type walkerWarning struct {
	message, path string
}

// stringKind is what a JSON string compiles to.
type stringKind uint8

const (
	// unchanged strings are written as they are.
	unchanged stringKind = iota
	// rewritten strings lost an escape but hold no parameter.
	rewritten
	// textWithParams strings hold parameter values as text.
	textWithParams
	// typedParam strings are one ${{P}} or $((P)): the value goes in as JSON.
	typedParam
)

// compiledString is a compiled JSON string; segs live in the walker's scratch space.
type compiledString struct {
	kind    stringKind
	param   int
	content []byte
	segs    []segment
}

// compileString compiles the JSON string raw. A key never takes a typed value. Reference
// segments that stay as written are turned into literal text.
func (w *walker) compileString(raw []byte, cx walkContext, key bool, scratch *[]segment) compiledString {
	if !jsonbytes.MayContainDollar(raw) {
		return compiledString{kind: unchanged}
	}
	content := jsonbytes.StringContent(raw)
	segs, changed := w.c.sx.split(content, (*scratch)[:0])
	*scratch = segs
	dialect := w.c.plan.dialect
	whole := len(segs) == 1
	hasParams := false
	for i := range segs {
		seg := &segs[i]
		if !seg.ref {
			continue
		}
		switch {
		case seg.param < 0:
			w.undeclared(content, seg)
			seg.ref = false
		case dialect == OpenShift && seg.typed && !whole:
			w.warn(fmt.Sprintf("%s is not substituted: OpenShift substitutes ${{%s}} only as a whole string", seg.text(content), seg.name(content)))
			seg.ref = false
		case seg.typed && whole && !key:
			w.c.plan.usage[seg.param] |= usedAsJSON
			return compiledString{kind: typedParam, param: seg.param}
		default:
			hasParams = true
			if seg.paren && !seg.typed && cx.expandIn != nil {
				w.checkAmbiguity(cx.expandIn, cx.envIndex, content[seg.nameStart:seg.nameEnd])
			}
			w.c.plan.usage[seg.param] |= usedAsText
		}
	}
	switch {
	case hasParams:
		return compiledString{kind: textWithParams, content: content, segs: segs}
	case changed:
		return compiledString{kind: rewritten, content: content, segs: segs}
	}
	return compiledString{kind: unchanged}
}

// emitString emits a compiled string that is not unchanged.
func (w *walker) emitString(s compiledString) {
	if s.kind == typedParam {
		w.emit(op{code: opJSON, param: int32(s.param)})
		return
	}
	w.emitByte('"')
	for i := range s.segs {
		if seg := &s.segs[i]; seg.ref {
			w.emit(op{code: opText, param: int32(seg.param)})
		} else {
			w.emitEscaped(seg.text(s.content))
		}
	}
	w.emitByte('"')
}

// undeclared reports a reference to an undeclared parameter: an error in our dialect, kept as
// written with a warning in OpenShift's.
func (w *walker) undeclared(content []byte, seg *segment) {
	text, name := seg.text(content), seg.name(content)
	if w.c.plan.dialect == OpenShift {
		w.warn(fmt.Sprintf("%s refers to the undeclared parameter %s and is kept as written", text, name))
		return
	}
	w.errorf(field.Invalid(w.fieldPath(), string(text), fmt.Sprintf("%s is not a declared parameter", name)))
}

func (w *walker) warn(message string) {
	w.warnings = append(w.warnings, walkerWarning{message: message, path: w.fieldPath().String()})
}
