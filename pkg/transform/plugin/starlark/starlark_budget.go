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
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"go.starlark.net/starlark"
	"stencil.dev/stencil/pkg/transform"
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
func (r *starlarkRun) print(ctx *transform.Context, msg string) {
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
