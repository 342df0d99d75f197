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

package starlark

import (
	"fmt"
	"math/bits"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Before a script runs, starlark_rewrite.go routes every operation that can make a value
// larger than its operands, or do more work than one step, through a guard here: calls
// (every built-in has its own guard, starlark_builtins.go), the operators + - * % << | & ^,
// comparisons and `in` between values that are not literals, slices, literals,
// comprehension elements, item assignments, dict keys, and *args and **kwargs. Each guard
// counts the steps of the work it lets run and charges the memory it lets be made, before
// either happens.

// guardPrefix starts the names of the guards; a script may not use it, or it could rebind a
// guard to a function of its own.
const guardPrefix = "_stencil_"

// Names of the guards the rewritten script calls.
const (
	guardCall     = "_stencil_call"
	guardBinary   = "_stencil_binary"
	guardCompare  = "_stencil_compare"
	guardCharge   = "_stencil_charge"
	guardElem     = "_stencil_elem"
	guardHash     = "_stencil_hash"
	guardKey      = "_stencil_key"
	guardSetIndex = "_stencil_setindex"
	guardAugIndex = "_stencil_augindex"
	guardSpread   = "_stencil_spread"
	guardKwargs   = "_stencil_kwargs"
)

// guardFunc is a guard, given its run.
type guardFunc func(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// guards are the guards by name; scripts also see Starlark's universe and ctx.
var guards = map[string]guardFunc{
	guardCall:     guardedCall,
	guardBinary:   guardedBinary,
	guardCompare:  guardedCompare,
	guardCharge:   charged,
	guardElem:     guardedElem,
	guardHash:     guardedHash,
	guardKey:      guardedKey,
	guardSetIndex: guardedSetIndex,
	guardAugIndex: guardedAugIndex,
	guardSpread:   guardedSpread,
	guardKwargs:   guardedKwargs,
}

// predeclared are the guards of one run, bound to it: a guard finds its run without a lookup.
func (r *starlarkRun) predeclared() starlark.StringDict {
	out := make(starlark.StringDict, len(guards)+1)
	for name, fn := range guards {
		out[name] = starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return fn(r, thread, args, kwargs)
		})
	}
	return out
}

// guardedCall makes a call: a script's own function as it is (its steps count), a built-in
// through its guard.
func guardedCall(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if b, ok := args[0].(*starlark.Builtin); ok {
		return callBuiltin(thread, run, b, args[1:], kwargs)
	}
	return starlark.Call(thread, args[0], args[1:], kwargs)
}

// guardedBinary checks + - * % << | & ^ (and their assignments) before they run.
func guardedBinary(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	// The rewrite passes the operator's token, plus augmentedToken for x op= y.
	code, _ := args[0].(starlark.Int).Int64()
	token, x, y := syntax.Token(code%augmentedToken), args[1], args[2]
	op := token.String()
	if code >= augmentedToken {
		op += "="
	}
	if v, done, err := collectionBinary(run, token, x, y); done {
		return v, err
	}
	if l, ok := x.(*starlark.List); ok && op == "+=" {
		// x += y extends a list in place, as Starlark's own += does.
		return l, extendList(run, l, y)
	}
	need := 0
	switch token {
	case syntax.PLUS:
		need = add(shallowSize(x), shallowSize(y))
	case syntax.STAR:
		xi, xInt := x.(starlark.Int)
		yi, yInt := y.(starlark.Int)
		switch {
		case xInt && yInt:
			// A product has about as many bits as its factors together; squaring in a loop
			// doubles them each step.
			if (intBits(xi)+intBits(yi))/8 > maxStarlarkIntBytes {
				// The time to multiply grows faster than the size: cap the size.
				return nil, &starlarkMemoryError{detail: "a product of integers would pass 64 KiB", limit: run.limit}
			}
		case xInt:
			need = repeatSize(y, repeatCount(xi))
		case yInt:
			need = repeatSize(x, repeatCount(yi))
		}
	case syntax.LTLT:
		// Starlark caps one shift at 511 bits, but a loop of them grows an integer a step at
		// a time, each step copying it.
		if xi, ok := x.(starlark.Int); ok && intBits(xi)/8+64 > maxStarlarkIntBytes {
			return nil, &starlarkMemoryError{detail: "a shifted integer would pass 64 KiB", limit: run.limit}
		}
	case syntax.PERCENT:
		if format, ok := x.(starlark.String); ok {
			// Each conversion takes one element of a tuple; with a dict, %(key)s may name the
			// same value again and again.
			written := deepSize(y, run.budget+1)
			if _, ok := y.(starlark.Mapping); ok {
				written = mul(written, strings.Count(string(format), "%"))
			}
			need = add(shallowSize(x), mul(written, 2))
		}
	}
	if err := run.charge(need, func() string { return fmt.Sprintf("%s %s %s would make %s", x.Type(), op, y.Type(), formatBytes(need)) }); err != nil {
		return nil, err
	}
	return starlark.Binary(token, x, y)
}

// augmentedToken is added to an operator's token for its augmented assignment (x += y).
const augmentedToken = 1000

// intBits is the bits of an integer, without making a big.Int of a small one.
func intBits(i starlark.Int) int {
	if n, ok := i.Int64(); ok {
		return 64 - bits.LeadingZeros64(uint64(max(n, -n)))
	}
	return i.BigInt().BitLen()
}

// repeatSize is the size of n copies of a sequence: its elements n times, its header once.
func repeatSize(v starlark.Value, n int) int {
	switch v := v.(type) {
	case starlark.String:
		return add(mul(len(v), n), costBox)
	case starlark.Bytes:
		return add(mul(len(v), n), costBox)
	case *starlark.List:
		return add(mul(mul(v.Len(), n), 16), costHeader)
	case starlark.Tuple:
		return add(mul(mul(len(v), n), 16), costBox)
	}
	return 0
}

// repeatCount is n of a sequence * n, at most 2^40 (already past any budget).
func repeatCount(i starlark.Int) int {
	n, ok := i.Int64()
	if !ok || n > 1<<40 {
		return 1 << 40
	}
	return int(max(n, 0))
}

// guardedCompare checks == != < <= > >= and in, between values that are not literals, before
// they run: comparing two lists that hold the same list many times over at every level
// visits every path, which is exponential in their depth.
func guardedCompare(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	code, _ := args[0].(starlark.Int).Int64()
	token, x, y := syntax.Token(code), args[1], args[2]
	work := 1
	if token != syntax.IN && (scalar(x) || scalar(y)) {
		// A number, None or a bool compares at once; a string in the time of its bytes.
		xs, ok1 := x.(starlark.String)
		ys, ok2 := y.(starlark.String)
		if ok1 && ok2 {
			work = min(len(xs), len(ys)) / scanBytesPerStep
		}
		if err := run.step(work); err != nil {
			return nil, err
		}
		ok, err := starlark.Compare(token, x, y)
		return starlark.Bool(ok), err
	}
	limit := remainingSteps(run)
	if token == syntax.IN {
		switch y := y.(type) {
		case *starlark.List, starlark.Tuple:
			work = mul(starlark.Len(y), compareWork(x, limit/max(starlark.Len(y), 1)+1))
		case *starlark.Dict, *starlark.Set:
			work = hashWork(x, limit)
		case starlark.String:
			work = len(y) / scanBytesPerStep
		}
	} else {
		work = min(compareWork(x, limit), compareWork(y, limit))
	}
	if err := run.step(work); err != nil {
		return nil, err
	}
	if token == syntax.IN {
		return starlark.Binary(token, x, y)
	}
	ok, err := starlark.Compare(token, x, y)
	return starlark.Bool(ok), err
}

// scalar reports the values compared without looking inside.
func scalar(v starlark.Value) bool {
	switch v.(type) {
	case starlark.String, starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType, starlark.Bytes:
		return true
	}
	return false
}

// remainingSteps is what a walk that precedes work may count up to before it knows the work
// is past the step limit.
func remainingSteps(run *starlarkRun) int {
	if run.thread.Steps >= run.maxSteps {
		return 0
	}
	return int(min(run.maxSteps-run.thread.Steps, 1<<50))
}

// hashStep counts the work of hashing v: a tuple hashes every element, at any depth.
func hashStep(run *starlarkRun, v starlark.Value) error {
	if _, ok := v.(starlark.Tuple); !ok {
		return run.step(1)
	}
	return run.step(hashWork(v, remainingSteps(run)))
}

// guardedHash checks a key read from a dict, or written into a dict literal.
func guardedHash(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return args[0], hashStep(run, args[0])
}

// guardedKey checks and charges a key stored by a comprehension or by an assignment whose
// container the guard does not see (a[k], b = 1, 2): as a new entry.
func guardedKey(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := hashStep(run, args[0]); err != nil {
		return nil, err
	}
	return args[0], run.charge(costEntry+costBox, entriesMessage)
}

func entriesMessage() string { return "the dict entries it made" }

// guardedElem charges an element a list comprehension adds.
func guardedElem(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return args[0], run.charge(costSlot+storeCost(args[0]), elementsMessage)
}

func elementsMessage() string { return "the list elements it made" }

// guardedSetIndex makes x[k] = v (arguments in the order the assignment evaluates them),
// charging a new dict entry, or the value a list slot now holds.
func guardedSetIndex(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, x, k := args[0], args[1], args[2]
	switch x := x.(type) {
	case starlark.HasSetKey:
		if err := hashStep(run, k); err != nil {
			return nil, err
		}
		cost := storeCost(v)
		if _, found, err := x.Get(k); err == nil && !found {
			cost += costEntry
		}
		if err := run.charge(cost, entriesMessage); err != nil {
			return nil, err
		}
		return starlark.None, x.SetKey(k, v)
	case starlark.HasSetIndex:
		if err := run.charge(storeCost(v), elementsMessage); err != nil {
			return nil, err
		}
		n := x.Len()
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, err
		}
		if i < -n || i >= n {
			return nil, outOfRange(i, n, x)
		}
		if i < 0 {
			i += n
		}
		return starlark.None, x.SetIndex(i, v)
	}
	return nil, fmt.Errorf("%s value does not support item assignment", x.Type())
}

// charged charges a value just made without a guard of its own: a literal, a slice, a
// function, a method kept as a value.
func charged(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v := args[0]
	size := shallowSize(v)
	if len(args) > 1 {
		switch args[1] {
		case starlark.String("slice"):
			switch v.(type) {
			case starlark.String, starlark.Bytes:
				size = costBox // a substring shares its string's bytes
			}
		case starlark.String("attr"):
			if _, ok := v.(*starlark.Builtin); !ok {
				return v, nil // a field, which exists already
			}
		}
	}
	return v, run.charge(size, func() string { return fmt.Sprintf("the %s it made", v.Type()) })
}

// guardedSpread checks f(*x): the call's arguments are x's elements, all made at once.
func guardedSpread(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x := args[0]
	n := starlark.Len(x)
	if err := run.charge(mul(max(n, 0), costSlot), func() string { return fmt.Sprintf("f(*x) would pass %s arguments", formatCount(n)) }); err != nil {
		return nil, err
	}
	if it, ok := x.(starlark.Iterable); ok && lazy(x) {
		return &checkedIterable{inner: it, run: run, name: "f(*x)", elemBytes: costSlot + costBox}, nil
	}
	return x, run.step(max(n, 0) / 16)
}

// guardedKwargs checks f(**x): the call's keyword arguments are x's items, all made at once.
func guardedKwargs(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n := starlark.Len(args[0])
	return args[0], run.charge(mul(max(n, 0), costPair), func() string { return fmt.Sprintf("f(**x) would pass %s arguments", formatCount(n)) })
}
