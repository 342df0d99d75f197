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
	"math"
	"strings"
	"sync/atomic"

	"go.starlark.net/starlark"
)

// A run's budget. The interpreter counts one step per bytecode instruction and sees a cancel
// only between instructions, so a built-in that loops inside one instruction (all() over
// range(1 << 62)) or allocates inside one ("x" * 60000000).split("x") escapes both. The
// guards (starlark_guard.go, starlark_builtins.go) close that: work done inside an
// instruction counts steps as it goes and looks at the clock's and the request's stop flag
// in every loop, and memory is checked against the budget before it is allocated. The budget
// counts Go bytes as the heap holds them (interface values, string headers, hash-table
// entries), so that what a run may hold is its budget, not a multiple of it. It is spent,
// never refunded: a run pays for what it creates even after dropping it, which keeps the
// accounting free of any garbage collector's view.

// Errors a Starlark run reports when it passes a bound; the request gets a 422 naming the
// transformer and the bound.
var (
	errStarlarkSteps   = errors.New("the Starlark script passed its step limit")
	errStarlarkTimeout = errors.New("the Starlark script passed its time limit")
	errStarlarkMemory  = errors.New("the Starlark script passed its memory limit")
	errStarlarkEnded   = errors.New("the request ended")
)

// Go bytes of the values a script makes, charged before they are made.
const (
	// costBox is a value stored as an interface that points to a new object: a string
	// header, a float, a tuple's slice header.
	costBox = 16
	// costSlot is one element of a list or tuple (an interface value), counted twice: a
	// growing list holds its old and its new array while it copies.
	costSlot = 32
	// costStore is an element a script adds to a list, boxed.
	costStore = costSlot + costBox
	// costEntry is one new key of a dict or set: its 56-byte entry, its share of the
	// buckets (6.5 entries per 456-byte bucket at most), and the old table while the table
	// doubles. TestStarlarkChargesCoverAllocations holds it to what the heap shows.
	costEntry = 160
	// costPair is a (key, value) tuple of items() or enumerate(): two slots, the tuple's
	// header boxed, and the list's slot.
	costPair = 2*16 + 32 + costSlot
	// costFunc is a function value or a bound method.
	costFunc = 128
	// costHeader is a container's own struct.
	costHeader = 64
	// scanBytesPerStep is how many bytes a built-in scans per step it counts.
	scanBytesPerStep = 64
)

// maxStarlarkDepth bounds the nesting the guards and the conversion back to objects walk.
const maxStarlarkDepth = 1000

// maxStarlarkIntBytes bounds the integers a product may make: no configuration needs more, and
// multiplying larger ones takes seconds inside one instruction, where no cancel is seen.
const maxStarlarkIntBytes = 64 << 10

// budgetPassedHook, when a test sets it, is called as a run passes its memory budget, while
// all the run holds is still reachable: the heap then is the run's peak.
var budgetPassedHook func()

// runKey finds a run's state in its thread.
const runKey = "stencil.run"

// starlarkRun is the state of one run the guards share.
type starlarkRun struct {
	thread *starlark.Thread
	// limit is the whole memory budget, for messages.
	limit int
	// budget is what the run may still create, in bytes.
	budget int
	// maxSteps is the thread's step limit, which built-ins count against too.
	maxSteps uint64
	// prints counts the lines print() reported.
	prints int
	// stopped is set, from the timer's or the request's goroutine, when the run must stop;
	// built-ins look at it in their loops, as the interpreter looks at a cancel.
	stopped atomic.Pointer[error]
	// err is the first bound a built-in's loop passed, which the guard around the built-in
	// returns in place of the built-in's (partial) result.
	err error
}

func runOf(thread *starlark.Thread) *starlarkRun { return thread.Local(runKey).(*starlarkRun) }

// stop makes the run fail with err at its next step, in a built-in's loop or between
// instructions. It may be called from any goroutine.
func (r *starlarkRun) stop(err error) {
	r.stopped.CompareAndSwap(nil, &err)
	r.thread.Cancel(err.Error())
}

// step counts n steps of work a built-in does and checks every bound but memory.
func (r *starlarkRun) step(n int) error {
	if p := r.stopped.Load(); p != nil {
		return *p
	}
	if r.err != nil {
		return r.err
	}
	if n < 0 || uint64(n) > r.maxSteps-min(r.thread.Steps, r.maxSteps) {
		r.thread.Steps = r.maxSteps
		return errStarlarkSteps
	}
	r.thread.Steps += uint64(n)
	return nil
}

// charge spends n bytes of the budget, or fails with what they were for; what is called only
// then, to keep the common path free of formatting.
func (r *starlarkRun) charge(n int, what func() string) error {
	if n < 0 || n > r.budget {
		if budgetPassedHook != nil {
			budgetPassedHook()
		}
		r.budget = -1
		detail := "the values it made"
		if what != nil {
			detail = what()
		}
		return &starlarkMemoryError{detail: detail, limit: r.limit}
	}
	r.budget -= n
	return nil
}

// fail records the first bound a built-in's loop passed, for its guard to return.
func (r *starlarkRun) fail(err error) {
	if r.err == nil {
		r.err = err
	}
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

// starlarkMemoryError is the memory bound, saying what passed it.
type starlarkMemoryError struct {
	detail string
	limit  int
}

func (e *starlarkMemoryError) Error() string {
	return fmt.Sprintf("%s: %s; its memory budget is %s", errStarlarkMemory, e.detail, formatBytes(e.limit))
}

func (e *starlarkMemoryError) Unwrap() error { return errStarlarkMemory }

// formatBytes writes n for people: 64 MiB, 1.5 GB.
func formatBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%d bytes", n)
}

// formatCount writes a count of elements: 60000001, or 4.6e18 when it is huge.
func formatCount(n int) string {
	if n < 1e9 {
		return fmt.Sprint(n)
	}
	return strings.Replace(fmt.Sprintf("%.2g", float64(n)), "e+", "e", 1)
}

// mul and add saturate at MaxInt: a count times a size must not wrap to a small number.
func mul(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

func add(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// lazy reports the iterables that make their elements as they go (range, the views of a
// string's or bytes' elements): small to hold, but their length is not memory the run paid.
func lazy(v starlark.Value) bool {
	switch v.(type) {
	case *starlark.List, starlark.Tuple, *starlark.Dict, *starlark.Set:
		return false
	}
	_, ok := v.(starlark.Iterable)
	return ok
}

// shallowSize is the Go bytes of a value itself, its elements' slots but not the elements.
func shallowSize(v starlark.Value) int {
	switch v := v.(type) {
	case starlark.String:
		return add(len(v), costBox)
	case starlark.Bytes:
		return add(len(v), costBox)
	case starlark.Int:
		if _, ok := v.Int64(); ok {
			return 0 // a small int is stored in the interface itself
		}
		return 48 + intBits(v)/8
	case starlark.Float:
		return 8
	case starlark.Bool, starlark.NoneType:
		return 0
	case *starlark.List:
		return add(costHeader, mul(v.Len(), 16))
	case starlark.Tuple:
		return add(costBox, mul(len(v), 16))
	case *starlark.Dict:
		return add(costHeader, mul(v.Len(), costEntry))
	case *starlark.Set:
		return add(costHeader, mul(v.Len(), costEntry))
	case *starlark.Function, *starlark.Builtin:
		return costFunc
	}
	return costHeader
}

// storeCost is what keeping v in a container costs besides its slot: its box, and the
// values that are made without a guard and are only worth counting once kept (functions,
// bound methods, big integers, floats).
func storeCost(v starlark.Value) int {
	switch v := v.(type) {
	case starlark.Int, starlark.Float, *starlark.Function, *starlark.Builtin:
		return costBox + shallowSize(v)
	}
	return costBox
}

// deepSize bounds what writing v out takes (str, repr, %, format, print), each reference
// counted (shared or cyclic parts many times, as str() writes them), stopping once past
// limit. A string may be quoted with every byte escaped (\x00: four bytes).
func deepSize(v starlark.Value, limit int) int {
	total := 0
	var walk func(v starlark.Value, depth int)
	walk = func(v starlark.Value, depth int) {
		if total > limit {
			return
		}
		if depth > maxStarlarkDepth {
			total = math.MaxInt
			return
		}
		switch v := v.(type) {
		case starlark.String:
			total = add(total, add(mul(len(v), 4), 2))
			return
		case starlark.Bytes:
			total = add(total, add(mul(len(v), 4), 3))
			return
		case starlark.Int:
			if _, ok := v.Int64(); ok {
				total += 20
			} else {
				total += intBits(v)*3/10 + 2
			}
			return
		case starlark.Float:
			total += 32
			return
		case *starlark.Dict:
			total = add(total, add(mul(v.Len(), 4), 2))
			for k, e := range v.Entries() {
				if total > limit {
					return
				}
				walk(k, depth+1)
				walk(e, depth+1)
			}
			return
		}
		if lazy(v) {
			total += 64 // range(0, 10): its bounds, not its elements
			return
		}
		it, ok := v.(starlark.Iterable)
		if !ok {
			total += 64 // None, True, <function f>, <built-in method upper of string value>
			return
		}
		total = add(total, add(mul(starlark.Len(v), 2), 8))
		iter := it.Iterate()
		defer iter.Done()
		var e starlark.Value
		for iter.Next(&e) && total <= limit {
			walk(e, depth+1)
		}
	}
	walk(v, 0)
	return total
}

// compareWork bounds the values a comparison with v visits: starlark.Compare goes
// starlark.CompareLimit levels deep, through every element, so a list that holds another
// many times over is compared many times over. It stops once past limit.
func compareWork(v starlark.Value, limit int) int {
	if s, ok := v.(starlark.String); ok {
		return 1 + len(s)/scanBytesPerStep
	}
	if scalar(v) {
		return 1
	}
	total := 0
	var walk func(v starlark.Value, depth int)
	walk = func(v starlark.Value, depth int) {
		total++
		if depth >= starlark.CompareLimit || total > limit {
			return
		}
		switch v := v.(type) {
		case starlark.String:
			total += len(v) / scanBytesPerStep
		case *starlark.List, starlark.Tuple, *starlark.Set:
			iter := v.(starlark.Iterable).Iterate()
			defer iter.Done()
			var e starlark.Value
			for iter.Next(&e) && total <= limit {
				walk(e, depth+1)
			}
		case *starlark.Dict:
			for k, e := range v.Entries() {
				if total > limit {
					return
				}
				walk(k, depth+1)
				walk(e, depth+1)
			}
		}
	}
	walk(v, 0)
	return total
}

// hashWork bounds the values hashing v visits: a tuple hashes its elements, at any depth
// (Starlark puts no limit there). Deeper than maxStarlarkDepth is past any limit: the hash
// would recurse that deep on the Go stack.
func hashWork(v starlark.Value, limit int) int {
	switch v := v.(type) {
	case starlark.String:
		return 1 + len(v)/scanBytesPerStep
	case starlark.Tuple:
	default:
		return 1
	}
	total := 0
	var walk func(v starlark.Value, depth int)
	walk = func(v starlark.Value, depth int) {
		total++
		if depth > maxStarlarkDepth {
			total = math.MaxInt
		}
		if total > limit {
			return
		}
		switch v := v.(type) {
		case starlark.String:
			total += len(v) / scanBytesPerStep
		case starlark.Tuple:
			for _, e := range v {
				if total > limit {
					return
				}
				walk(e, depth+1)
			}
		}
	}
	walk(v, 0)
	return total
}
