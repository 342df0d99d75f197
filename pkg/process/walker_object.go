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
	"slices"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// objectEmitter holds the state of one object being compiled.
type objectEmitter struct {
	w       *walker
	cx      walkContext
	open    int // the opOpen op
	flags   uint8
	state   commaState
	changed bool
	// needFrame: ops of the object decide on commas at run time.
	needFrame bool
	runStart  int
	// present marks the label targets (children of cx.targets) the object has.
	present uint64
	// plain says the object lies in no place that changes its members (see member).
	plain bool
}

// object compiles the object at src[at:end].
func (w *walker) object(at, end int, cx walkContext) bool {
	m := w.mark()
	// The "{" ends a literal that nothing may extend, so that it can be split off into an
	// opOpen once we know whether the object needs bookkeeping at run time.
	w.emitByte('{')
	w.barrier = len(w.c.plan.ops)
	o := &objectEmitter{w: w, cx: cx, runStart: -1, open: len(w.c.plan.ops) - 1}
	if cx.targets != nil && cx.targets.labels {
		o.flags |= frameLabels
		o.changed = true
	}
	o.plain = cx.targets == nil && !cx.top && !cx.metadata && !cx.bareTop
	for i := at + 1; i < end-1; {
		keyEnd := w.st.end(w.src, i)
		valueEnd := w.st.end(w.src, keyEnd+1)
		o.member(i, keyEnd, valueEnd)
		i = valueEnd + 1 // past the comma or the closing brace
	}
	o.flush(end - 1)
	if cx.targets != nil {
		for i, t := range cx.targets.children {
			if t.create && o.present&(1<<i) == 0 {
				w.emit(op{code: opInsert, a: w.c.target(t)})
				o.needFrame, o.changed = true, true
			}
		}
	}
	if !o.changed {
		w.rewind(m)
		return false
	}
	if o.needFrame || o.flags != 0 || o.state == maybeMember {
		openOp := op{code: opOpen, flags: o.flags}
		if o.flags&frameCheckKeys != 0 {
			openOp.a = uint32(len(w.c.plan.keyPaths))
			w.c.plan.keyPaths = append(w.c.plan.keyPaths, w.fieldPath().String())
		}
		w.splitOpen(o.open, openOp)
		w.emit(op{code: opClose})
		w.barrier = len(w.c.plan.ops)
		return true
	}
	w.joinOpen(o.open)
	w.emitByte('}')
	return true
}

// joinOpen merges the literal ending in the "{" at ops[at] with the literal after it, once the
// object turned out to need no opOpen.
func (w *walker) joinOpen(at int) {
	p := w.c.plan
	if at+1 >= len(p.ops) || p.ops[at+1].code != opLit || p.ops[at].a+p.ops[at].b != p.ops[at+1].a {
		return
	}
	p.ops[at].b += p.ops[at+1].b
	p.ops = slices.Delete(p.ops, at+1, at+2)
	if w.c.jumpsEnd <= at+1 {
		// No jump lies past the deleted op: most objects, which hold none.
		w.barrier = min(w.barrier, len(p.ops))
		return
	}
	w.c.jumpsEnd--
	for i := at + 1; i < len(p.ops); i++ {
		switch p.ops[i].code {
		case opSkipIfNull, opLabelMember, opCreateInstead:
			p.ops[i].jump--
		}
	}
	w.barrier = min(w.barrier, len(p.ops))
}

// splitOpen turns the "{" that ends the literal ops[at] into the op open.
func (w *walker) splitOpen(at int, open op) {
	p := w.c.plan
	if p.ops[at].b == 1 {
		p.ops[at] = open
		return
	}
	p.ops[at].b--
	p.ops = slices.Insert(p.ops, at+1, open)
	if w.c.jumpsEnd <= at+1 {
		return
	}
	w.c.jumpsEnd++
	for i := at + 2; i < len(p.ops); i++ {
		switch p.ops[i].code {
		case opSkipIfNull, opLabelMember, opCreateInstead:
			p.ops[i].jump++
		}
	}
}

// emitJump appends an op that jumps (land sets where to), and notes that ops up to it may
// jump, for joinOpen and splitOpen.
func (w *walker) emitJump(o op) int {
	at := w.emit(o)
	w.c.jumpsEnd = at + 1
	return at
}

// flush writes the run of unchanged members before upTo.
func (o *objectEmitter) flush(upTo int) {
	if o.runStart >= 0 {
		o.w.comma(o.state)
		o.w.emitLit(o.w.src[o.runStart:upTo])
		o.state, o.runStart = o.nextState(o.state), -1
	}
}

// nextState is the comma state after an unconditional member.
func (o *objectEmitter) nextState(s commaState) commaState {
	if s == maybeMember {
		return maybeMember
	}
	return hadMember
}

// member compiles the member whose key is src[keyAt:keyEnd] and whose value ends at valueEnd.
func (o *objectEmitter) member(keyAt, keyEnd, valueEnd int) {
	w := o.w
	if o.plain && !w.st.hasDollar(keyAt, valueEnd) {
		// Below no label target, outside the object's top and metadata, a member changes only
		// where it holds a "$": most members the walker meets are told so without their context.
		if o.runStart < 0 {
			o.runStart = keyAt
		}
		return
	}
	cx := o.cx
	valueAt := keyEnd + 1
	keyRaw := w.src[keyAt:keyEnd]
	name := keyRaw[1 : len(keyRaw)-1]
	if w.st.escapedNames {
		name = jsonbytes.StringContent(keyRaw)
	}
	child, drop := w.memberContext(cx, name, valueAt)
	if child.targets != nil && !drop {
		o.present |= 1 << child.targetIndex
	}
	replaceAPIVersion := cx.top && w.apiVersion != nil && string(name) == "apiVersion"
	// OpenShift removes a hardcoded namespace but writes "" for one that is "", null or not a
	// string, and for any hardcoded top-level namespace of an object without metadata (its
	// stripNamespace); so do we for its templates.
	emptyNamespace := drop && w.c.plan.dialect == OpenShift && (cx.bareTop || !nonEmptyString(w.src[valueAt:valueEnd]))
	drop = drop && !emptyNamespace
	keyMayChange := w.st.hasDollar(keyAt, keyEnd)
	labelMap := o.flags&frameLabels != 0
	if !drop && !replaceAPIVersion && !emptyNamespace && !labelMap && !keyMayChange && !w.mayChange(valueAt, valueEnd, child) {
		if o.runStart < 0 {
			o.runStart = keyAt
		}
		return
	}
	o.flush(keyAt - 1)
	if drop {
		o.changed = true
		return
	}
	w.pushKey(keyRaw)
	defer w.pop()

	key := compiledString{kind: unchanged}
	if keyMayChange {
		key = w.compileString(keyRaw, walkContext{}, true, &w.keySegs)
		if key.kind == textWithParams {
			o.flags |= frameCheckKeys
		}
		if key.kind != unchanged && cx.targets != nil {
			// The substituted key might name a label target: only the slow path can tell.
			w.needSlow = true
		}
	}
	value := compiledString{kind: unchanged}
	if w.src[valueAt] == '"' && !replaceAPIVersion && !emptyNamespace && child.createInstead == nil {
		value = w.compileString(w.src[valueAt:valueEnd], child, false, &w.valueSegs)
		if value.kind == typedParam && child.targets != nil {
			// A label map, or what leads to one, given whole by ${{P}}.
			w.needSlow = true
		}
	}

	jumps := make([]int, 0, 2)
	switch {
	case labelMap && key.kind == unchanged:
		nameAt := len(w.c.plan.arena)
		w.c.plan.arena = append(w.c.plan.arena, name...)
		jumps = append(jumps, w.emitJump(op{code: opLabelMember, a: uint32(nameAt), b: uint32(len(name))}))
	case child.createInstead != nil:
		jumps = append(jumps, w.emitJump(op{code: opCreateInstead, a: w.c.target(child.createInstead)}))
		o.needFrame = true
	}
	if value.kind == typedParam {
		jumps = append(jumps, w.emitJump(op{code: opSkipIfNull, param: int32(value.param)}))
	}
	if len(jumps) > 0 {
		w.barrier = len(w.c.plan.ops)
	}
	w.comma(o.state)
	if key.kind == unchanged {
		w.emitLit(keyRaw)
	} else {
		w.emitString(key)
	}
	w.emitByte(':')
	changed := key.kind != unchanged || labelMap || child.createInstead != nil
	switch {
	case replaceAPIVersion:
		w.emitLit(w.apiVersion)
		changed = true
	case emptyNamespace:
		w.emitLit([]byte(`""`))
		changed = true
	case value.kind != unchanged:
		w.emitString(value)
		changed = true
	case w.src[valueAt] != '"' && w.mayChange(valueAt, valueEnd, child) && w.value(valueAt, valueEnd, child):
		changed = true
	default:
		w.emitLit(w.src[valueAt:valueEnd])
	}
	for _, j := range jumps {
		w.land(j)
	}
	o.changed = o.changed || changed
	if value.kind == typedParam {
		o.state = maybeMember
	} else {
		o.state = o.nextState(o.state)
	}
}

// nonEmptyString reports whether the JSON value raw is a string with content.
func nonEmptyString(raw []byte) bool {
	return len(raw) > 2 && raw[0] == '"'
}
