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
)

// compileObject compiles one object, or one transformer config when templateObject is false.
// An object whose shape depends on parameter values is compiled again for the slow path.
func (c *compiler) compileObject(raw []byte, path *field.Path, templateObject bool) (compiledObject, field.ErrorList) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return compiledObject{}, field.ErrorList{field.Required(path, "an object is needed here")}
	}
	src, err := compactJSON(raw)
	if err != nil {
		return compiledObject{}, field.ErrorList{field.Invalid(path, "", "not valid JSON: "+err.Error())}
	}
	if src[0] != '{' {
		return compiledObject{}, field.ErrorList{field.Invalid(path, "", "must be a JSON object")}
	}
	for slow := c.forceSlow; ; slow = true {
		w := &walker{c: c, src: src, root: path, slow: slow}
		cx := context{envIndex: -1}
		if templateObject {
			cx.top = true
			if errs := w.header(&cx); len(errs) > 0 {
				return compiledObject{}, errs
			}
		}
		root, _ := w.object(0, cx)
		if w.needSlow && !w.slow {
			continue
		}
		if len(w.errs) > 0 {
			return compiledObject{}, w.errs
		}
		for _, warn := range w.warnings {
			c.warnings.add(warn.message, warn.path)
		}
		if root == nil {
			root = staticNode(src)
		}
		return compiledObject{root: *root, slow: w.slow && templateObject, path: path}, nil
	}
}

// header checks the object's kind and apiVersion and, when they are literals, decides where
// its labels go and its OpenShift group. A parameterised kind or apiVersion sends the object
// to the slow path, which decides after substitution.
func (w *walker) header(cx *context) field.ErrorList {
	var raws [2][]byte
	forEachMember(w.src, 0, func(key []byte, at, end int) {
		switch string(key) {
		case `"kind"`:
			raws[0] = w.src[at:end]
		case `"apiVersion"`:
			raws[1] = w.src[at:end]
		}
	})
	var errs field.ErrorList
	var values [2]string
	dynamic := false
	for i, name := range []string{"kind", "apiVersion"} {
		raw := raws[i]
		switch {
		case raw == nil:
			errs = append(errs, field.Required(w.root.Child(name), ""))
		case raw[0] != '"':
			errs = append(errs, field.Invalid(w.root.Child(name), string(raw), "must be a string"))
		case w.c.sx.hasReference(stringContent(raw)):
			dynamic = true
		case len(raw) == 2:
			errs = append(errs, field.Required(w.root.Child(name), ""))
		default:
			values[i] = string(stringContent(raw))
		}
	}
	if len(errs) > 0 || dynamic || w.slow {
		w.slow = w.slow || dynamic
		return errs
	}
	kind, apiVersion := values[0], values[1]
	cx.targets = labelTargetsFor(w.c.plan.dialect, apiVersion, kind)
	if w.c.plan.dialect == OpenShift {
		if grouped, ok := groupify(apiVersion, kind); ok {
			w.apiVersion = appendQuoted(nil, grouped)
		}
	}
	return nil
}

// walkerWarning is a warning found while compiling an object, kept until the object is done.
type walkerWarning struct {
	message, path string
}

// stringValue compiles the JSON string raw: nil when it stays as written, a static node when
// only escapes changed, or a node with references. A key never takes a typed value.
func (w *walker) stringValue(raw []byte, cx context, key bool) *node {
	if !mayHoldReference(raw) {
		return nil
	}
	segs, changed := w.c.sx.split(stringContent(raw))
	dialect := w.c.plan.dialect
	whole := len(segs) == 1
	var parts []part
	hasParams := false
	for _, seg := range segs {
		param := -1
		if seg.ref {
			switch {
			case seg.param < 0:
				w.undeclared(seg)
			case dialect == OpenShift && seg.typed && !whole:
				w.warn(fmt.Sprintf("%s is not substituted: OpenShift substitutes ${{%s}} only as a whole string", seg.text, seg.name))
			default:
				param = seg.param
			}
		}
		if param < 0 {
			if len(parts) == 0 || parts[len(parts)-1].param >= 0 {
				parts = append(parts, part{param: -1})
			}
			last := &parts[len(parts)-1]
			last.literal = appendEscaped(last.literal, seg.text)
			continue
		}
		hasParams = true
		if seg.typed && whole && !key {
			w.c.plan.usage[param] |= usedAsJSON
			return &node{kind: nodeJSON, param: param}
		}
		if seg.paren && !seg.typed && cx.expandIn != nil {
			cx.expandIn.pending = append(cx.expandIn.pending, pendingReference{name: seg.name, envIndex: cx.envIndex, path: w.fieldPath()})
		}
		w.c.plan.usage[param] |= usedAsText
		parts = append(parts, part{param: param})
	}
	switch {
	case hasParams:
		return &node{kind: nodeText, parts: parts}
	case changed:
		quoted := []byte{'"'}
		for _, p := range parts {
			quoted = append(quoted, p.literal...)
		}
		return staticNode(append(quoted, '"'))
	}
	return nil
}

// undeclared reports a reference to an undeclared parameter: an error in our dialect, kept as
// written with a warning in OpenShift's.
func (w *walker) undeclared(seg segment) {
	if w.c.plan.dialect == OpenShift {
		w.warn(fmt.Sprintf("%s refers to the undeclared parameter %s and is kept as written", seg.text, seg.name))
		return
	}
	w.errorf(field.Invalid(w.fieldPath(), string(seg.text), fmt.Sprintf("%s is not a declared parameter", seg.name)))
}

func (w *walker) warn(message string) {
	w.warnings = append(w.warnings, walkerWarning{message: message, path: w.fieldPath().String()})
}
