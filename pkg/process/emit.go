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
	"sort"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// end returns the offset after the value at src[i:].
func (s *structure) end(src []byte, i int) int {
	switch src[i] {
	case '{', '[', '"':
		return int(s.ends[i])
	}
	return jsonbytes.SkipValue(src, i)
}

// hasDollar reports whether src[from:to] holds a "$".
func (s *structure) hasDollar(from, to int) bool {
	// The walker asks in document order, mostly: move on from the last answer, and search
	// only when a question goes back.
	k := s.nextDollar
	if k > 0 && int(s.dollars[k-1]) >= from {
		k = s.dollarAt(k, from)
	}
	for k < len(s.dollars) && int(s.dollars[k]) < from {
		k++
	}
	s.nextDollar = k
	return k < len(s.dollars) && int(s.dollars[k]) < to
}

// dollarAt returns the first of dollars[:k] at or after from: a question that goes back,
// apart so that hasDollar, asked at every member, is inlined.
func (s *structure) dollarAt(k, from int) int {
	return sort.Search(k, func(k int) bool { return int(s.dollars[k]) >= from })
}

// mark is a point the walker can return to when a value it compiled turns out unchanged.
type mark struct {
	ops, arena, keyPaths, barrier int
	// lastLit is the length of the last op before the mark, which later literals may extend.
	lastLit uint32
}

func (w *walker) mark() mark {
	p := w.c.plan
	m := mark{ops: len(p.ops), arena: len(p.arena), keyPaths: len(p.keyPaths), barrier: w.barrier}
	if m.ops > 0 {
		m.lastLit = p.ops[m.ops-1].b
	}
	return m
}

func (w *walker) rewind(m mark) {
	p := w.c.plan
	p.ops, p.arena, p.keyPaths = p.ops[:m.ops], p.arena[:m.arena], p.keyPaths[:m.keyPaths]
	if m.ops > 0 && p.ops[m.ops-1].code == opLit {
		p.ops[m.ops-1].b = m.lastLit
	}
	w.barrier = m.barrier
}

// emitLit writes fixed bytes, extending the previous literal when it ends where these begin.
func (w *walker) emitLit(b []byte) {
	p := w.c.plan
	at := len(p.arena)
	p.arena = append(p.arena, b...)
	w.extendLit(at)
}

// emitByte writes one fixed byte (a brace, a colon, a comma): appended as a byte, not copied
// as a slice, which costs a call of memmove for each.
func (w *walker) emitByte(c byte) {
	p := w.c.plan
	at := len(p.arena)
	p.arena = append(p.arena, c)
	// extendLit, without a call for each byte.
	if n := len(p.ops); n > w.barrier {
		if last := &p.ops[n-1]; last.code == opLit && int(last.a+last.b) == at {
			last.b++
			return
		}
	}
	p.ops = append(p.ops, op{code: opLit, a: uint32(at), b: 1})
}

// emitEscaped writes text escaped for the inside of a JSON string.
func (w *walker) emitEscaped(text []byte) {
	p := w.c.plan
	at := len(p.arena)
	p.arena = jsonbytes.AppendEscaped(p.arena, text)
	w.extendLit(at)
}

// extendLit makes arena[at:] part of the program.
func (w *walker) extendLit(at int) {
	p := w.c.plan
	n := len(p.ops)
	if n > w.barrier {
		if last := &p.ops[n-1]; last.code == opLit && int(last.a+last.b) == at {
			last.b = uint32(len(p.arena) - int(last.a))
			return
		}
	}
	if len(p.arena) > at {
		p.ops = append(p.ops, op{code: opLit, a: uint32(at), b: uint32(len(p.arena) - at)})
	}
}

// emit appends an op that is not a literal.
func (w *walker) emit(o op) int {
	w.c.plan.ops = append(w.c.plan.ops, o)
	return len(w.c.plan.ops) - 1
}

// land points the jump of ops[at] here; no literal before may grow past this point.
func (w *walker) land(at int) {
	p := w.c.plan
	p.ops[at].jump = uint32(len(p.ops))
	w.barrier = len(p.ops)
}

// commaState says whether the next member of an object needs a comma before it.
type commaState uint8

const (
	noMemberYet commaState = iota
	hadMember
	// maybeMember: a member before may have been removed, so Execute decides.
	maybeMember
)

// comma writes the separator a member or item needs in state s.
func (w *walker) comma(s commaState) {
	switch s {
	case hadMember:
		w.emitByte(',')
	case maybeMember:
		w.emit(op{code: opSep})
	}
}
