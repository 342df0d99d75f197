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

package transform

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The step limit counts bytecode instructions, but one instruction may ask a built-in for a
// gigabyte ("x" * (1 << 29), list(range(1 << 40)), str() of a list that holds itself twice at
// every level) and a cancel is only seen between instructions. So before a script runs, every
// operation that can make a value larger than its operands is routed through a guard here:
// calls (built-ins and methods), the operators +, *, % and <<, and slices. A guard checks what
// the operation would create against the run's memory budget before it runs, and charges
// what it created after; past the budget the run fails with errStarlarkMemory. Literals and
// comprehensions create one element per step, so the step limit bounds them.

// errStarlarkMemory is the run passing its memory budget.
var errStarlarkMemory = errors.New("the Starlark script passed its memory limit")

// maxStarlarkDepth bounds the nesting the guards and the conversion back to objects walk.
const maxStarlarkDepth = 1000

// maxStarlarkIntBytes bounds the integers a product may make: no configuration needs more, and
// multiplying larger ones takes seconds inside one instruction, where no cancel is seen.
const maxStarlarkIntBytes = 64 << 10

// runKey finds a run's state in its thread.
const runKey = "stencil.run"

// starlarkRun is the state of one run the guards share.
type starlarkRun struct {
	// limit is the whole budget, for messages.
	limit int
	// budget is what the run may still create, in bytes (about 16 per element).
	budget int
	// prints counts the lines print() reported.
	prints int
}

func (r *starlarkRun) charge(n int) error {
	r.budget -= n
	if r.budget < 0 {
		return errStarlarkMemory
	}
	return nil
}

// print keeps the first lines a script prints as warnings, to help its author.
func (r *starlarkRun) print(ctx *Context, msg string) {
	const maxPrints, maxLine = 10, 512
	if r.prints++; r.prints > maxPrints {
		return
	}
	if len(msg) > maxLine {
		msg = msg[:maxLine] + "..."
	}
	ctx.Warnf("print: %s", msg)
}

func runOf(thread *starlark.Thread) *starlarkRun { return thread.Local(runKey).(*starlarkRun) }

// guardPrefix starts the names of the guards; a script may not use it, or it could rebind a
// guard to a function of its own.
const guardPrefix = "_stencil_"

// Names of the guards the rewritten script calls.
const (
	guardCall   = "_stencil_call"
	guardBinary = "_stencil_binary"
	guardSlice  = "_stencil_charge"
)

// predeclared are the names scripts see besides ctx: Starlark's universe, and the guards.
var predeclared = starlark.StringDict{
	guardCall:   starlark.NewBuiltin(guardCall, guardedCall),
	guardBinary: starlark.NewBuiltin(guardBinary, guardedBinary),
	guardSlice:  starlark.NewBuiltin(guardSlice, charged),
}

// guardedCall checks a call that may create much from little, makes it, and charges its
// result.
func guardedCall(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	run := runOf(thread)
	fn := args[0]
	args = args[1:]
	if b, ok := fn.(*starlark.Builtin); ok {
		if err := precheckBuiltin(run, b, args, kwargs); err != nil {
			return nil, err
		}
	}
	v, err := starlark.Call(thread, fn, args, kwargs)
	if err != nil {
		return nil, err
	}
	if b, ok := fn.(*starlark.Builtin); ok && creates[b.Name()] {
		return v, run.charge(shallowSize(v))
	}
	return v, nil
}

// creates are the built-ins and methods that return a new value, which the run pays for;
// the others return a value that exists already (get, pop) or a small one (len, int).
var creates = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`str repr format join replace upper lower title capitalize strip lstrip rstrip
		split rsplit splitlines partition rpartition removeprefix removesuffix elems codepoints elem_ords
		codepoint_ords list tuple dict set sorted zip enumerate reversed keys values items bytes union
		difference intersection symmetric_difference`) {
		creates[name] = true
	}
}

// precheckBuiltin estimates what a built-in would create before it runs.
func precheckBuiltin(run *starlarkRun, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) error {
	need := 0
	switch b.Name() {
	case "str", "repr", "print", "fail", "format":
		// These write their arguments out, shared parts once per reference.
		for _, a := range args {
			need += deepSize(a, run.budget-need+1)
		}
		for _, kv := range kwargs {
			need += deepSize(kv[1], run.budget-need+1)
		}
		if r := b.Receiver(); r != nil {
			need += shallowSize(r)
		}
	case "list", "tuple", "sorted", "set", "dict", "enumerate", "zip", "extend", "reversed", "join", "update":
		for _, a := range args {
			if n := starlark.Len(a); n > 0 {
				need += 16 * n
			}
		}
		if b.Name() == "join" {
			if it, ok := args[0].(starlark.Iterable); ok && len(args) == 1 {
				sep := shallowSize(b.Receiver())
				iter := it.Iterate()
				var x starlark.Value
				for iter.Next(&x) && need <= run.budget {
					need += shallowSize(x) + sep
				}
				iter.Done()
			}
		}
	case "replace":
		if s, ok := b.Receiver().(starlark.String); ok && len(args) >= 2 {
			if n, ok := args[1].(starlark.String); ok {
				need = len(s) + (len(s)+1)*len(n)
			}
		}
	}
	if need > run.budget {
		return errStarlarkMemory
	}
	return nil
}

// guardedBinary checks +, *, % and << (and their assignments) before they run.
func guardedBinary(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	run := runOf(thread)
	op, x, y := string(args[0].(starlark.String)), args[1], args[2]
	var token syntax.Token
	switch strings.TrimSuffix(op, "=") {
	case "+":
		token = syntax.PLUS
	case "*":
		token = syntax.STAR
	case "<<":
		token = syntax.LTLT
	default:
		token = syntax.PERCENT
	}
	need := 0
	switch token {
	case syntax.PLUS:
		need = shallowSize(x) + shallowSize(y)
	case syntax.STAR:
		xi, xInt := x.(starlark.Int)
		yi, yInt := y.(starlark.Int)
		switch {
		case xInt && yInt:
			// A product has about as many bits as its factors together; squaring in a loop
			// doubles them each step.
			need = (xi.BigInt().BitLen() + yi.BigInt().BitLen()) / 8
			if need > maxStarlarkIntBytes {
				// The time to multiply grows faster than the size: cap the size.
				return nil, errStarlarkMemory
			}
		case xInt:
			need = repeatCount(xi) * shallowSize(y)
		case yInt:
			need = repeatCount(yi) * shallowSize(x)
		}
	case syntax.LTLT:
		// Starlark caps one shift at 511 bits, but a loop of them grows an integer a step at
		// a time, each step copying it.
		if xi, ok := x.(starlark.Int); ok && xi.BigInt().BitLen()/8+64 > maxStarlarkIntBytes {
			return nil, errStarlarkMemory
		}
	case syntax.PERCENT:
		if _, ok := x.(starlark.String); ok {
			need = shallowSize(x) + deepSize(y, run.budget+1)
		}
	}
	if need > run.budget {
		return nil, errStarlarkMemory
	}
	if l, ok := x.(*starlark.List); ok && op == "+=" {
		// x += y extends a list in place, as Starlark's own += does.
		iter := starlark.Iterate(y)
		if iter == nil {
			return nil, fmt.Errorf("unsupported binary op: list += %s", y.Type())
		}
		defer iter.Done()
		var e starlark.Value
		for iter.Next(&e) {
			if err := l.Append(e); err != nil {
				return nil, err
			}
		}
		return l, run.charge(need)
	}
	v, err := starlark.Binary(token, x, y)
	if err != nil {
		return nil, err
	}
	return v, run.charge(shallowSize(v))
}

// repeatCount is n of a sequence * n, at most 2^40 (already past any budget).
func repeatCount(i starlark.Int) int {
	n, ok := i.Int64()
	if !ok || n > 1<<40 {
		return 1 << 40
	}
	return int(max(n, 0))
}

// charged charges a value already made (a slice, no larger than what it was cut from).
func charged(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	return args[0], runOf(thread).charge(shallowSize(args[0]))
}

// shallowSize is a value's own size: a string's bytes, 16 per element of a container.
func shallowSize(v starlark.Value) int {
	switch v := v.(type) {
	case starlark.String:
		return len(v)
	case starlark.Bytes:
		return len(v)
	case starlark.Int:
		return 8 + v.BigInt().BitLen()/8
	}
	if n := starlark.Len(v); n > 0 {
		return 16 * n
	}
	return 8
}

// deepSize is what writing v out takes, each reference counted (shared or cyclic parts many
// times, as str() writes them), stopping once past limit.
func deepSize(v starlark.Value, limit int) int {
	total := 0
	var walk func(v starlark.Value, depth int)
	walk = func(v starlark.Value, depth int) {
		if total > limit {
			return
		}
		if depth > maxStarlarkDepth {
			total = limit + 1
			return
		}
		total += shallowSize(v) + 2
		switch v := v.(type) {
		case *starlark.Dict:
			for _, kv := range v.Items() {
				walk(kv[0], depth+1)
				walk(kv[1], depth+1)
			}
		case starlark.Iterable:
			iter := v.Iterate()
			defer iter.Done()
			var e starlark.Value
			for iter.Next(&e) && total <= limit {
				walk(e, depth+1)
			}
		}
	}
	walk(v, 0)
	return total
}
