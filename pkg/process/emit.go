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
	"sort"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// structure indexes one compacted object in one pass, so that the walker can skip any value
// that holds no "$" in constant time instead of reading it again at every depth.
type structure struct {
	// ends[i] is the offset after the object or array that opens at i; other entries are junk.
	ends []int32
	// dollars are the offsets of every "$" (and of every \u0024 escape), in order.
	dollars []int32
	stack   []int32
	// numbersFit is false when a number is one Kubernetes cannot read (see
	// templates.NumberFits); the pass that indexes the object checks them for free.
	numbersFit bool
}

func (s *structure) build(src []byte) {
	if cap(s.ends) < len(src) {
		s.ends = make([]int32, len(src)+len(src)/2)
	}
	s.ends = s.ends[:len(src)]
	s.dollars = s.dollars[:0]
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '$')
		if j < 0 {
			break
		}
		s.dollars = append(s.dollars, int32(i+j))
		i += j + 1
	}
	if escaped := []byte(`\u0024`); bytes.Contains(src, escaped) {
		for i := 0; ; {
			j := bytes.Index(src[i:], escaped)
			if j < 0 {
				break
			}
			s.dollars = append(s.dollars, int32(i+j))
			i += j + 1
		}
		sort.Slice(s.dollars, func(a, b int) bool { return s.dollars[a] < s.dollars[b] })
	}
	stack := s.stack[:0]
	s.numbersFit = true
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			i = jsonbytes.SkipString(src, i) - 1
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			end := jsonbytes.SkipValue(src, i)
			s.numbersFit = s.numbersFit && templates.NumberFits(src[i:end])
			i = end - 1
		case '{', '[':
			stack = append(stack, int32(i))
		case '}', ']':
			s.ends[stack[len(stack)-1]] = int32(i + 1)
			stack = stack[:len(stack)-1]
		}
	}
	s.stack = stack
}

// end returns the offset after the value at src[i:].
func (s *structure) end(src []byte, i int) int {
	switch src[i] {
	case '{', '[':
		return int(s.ends[i])
	case '"':
		return jsonbytes.SkipString(src, i)
	}
	return jsonbytes.SkipValue(src, i)
}

// hasDollar reports whether src[from:to] holds a "$".
func (s *structure) hasDollar(from, to int) bool {
	k := sort.Search(len(s.dollars), func(k int) bool { return int(s.dollars[k]) >= from })
	return k < len(s.dollars) && int(s.dollars[k]) < to
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
		w.emitLit([]byte{','})
	case maybeMember:
		w.emit(op{code: opSep})
	}
}
