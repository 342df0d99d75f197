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
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The guards of built-ins that need more than a table entry: what each will make is worked
// out from its receiver and arguments before it runs.

// maxIntDigits bounds the digits int() parses: Go parses decimal digits in quadratic time,
// so 60 MB of them would take hours inside one step. 150,000 digits pass 64 KiB.
const maxIntDigits = 150_000

func preCopyArg(g *gate) error {
	if len(g.args) == 1 {
		return g.charge(shallowSize(g.args[0]))
	}
	return nil
}

func preInt(g *gate) error {
	if len(g.args) == 0 {
		return nil
	}
	s, ok := g.args[0].(starlark.String)
	if !ok {
		return g.charge(shallowSize(g.args[0]))
	}
	if len(s) > maxIntDigits {
		return &starlarkMemoryError{detail: fmt.Sprintf("int() of a string of %d characters: integers are capped at 64 KiB", len(s)), limit: g.run.limit}
	}
	return g.charge(48 + len(s)/2)
}

func preBytes(g *gate) error {
	if len(g.args) != 1 {
		return nil
	}
	switch a := g.args[0].(type) {
	case starlark.String:
		// Each byte of an invalid encoding becomes the 3 bytes of U+FFFD.
		return g.charge(add(mul(len(a), 3), costBox))
	case starlark.Bytes:
		return nil
	}
	return g.iterate(iterOpts{elem: 3})
}

// preWrite guards the built-ins that write their arguments out: str, repr, print, fail.
func preWrite(g *gate) error {
	if g.b.Name() == "str" && len(g.args) == 1 {
		if _, ok := g.args[0].(starlark.String); ok {
			return nil // str of a string is the string
		}
	}
	need := 0
	for _, a := range g.args {
		need = add(need, deepSize(a, g.run.budget-need+1))
	}
	for _, kv := range g.kwargs {
		need = add(need, deepSize(kv[1], g.run.budget-need+1))
	}
	// A buffer that grows by doubling holds its old and its new array at once.
	return g.charge(add(mul(need, 2), costBox))
}

func preFormat(g *gate) error {
	widest := 0
	for _, a := range g.args {
		widest = max(widest, deepSize(a, g.run.budget+1))
	}
	for _, kv := range g.kwargs {
		widest = max(widest, deepSize(kv[1], g.run.budget+1))
	}
	s := g.recv()
	// Every field may name the widest argument: "{0}{0}{0}".format(x).
	need := add(len(s), mul(strings.Count(s, "{"), widest))
	if err := g.scan(); err != nil {
		return err
	}
	return g.charge(add(mul(need, 2), costBox))
}

func preMinMax(g *gate) error {
	o := iterOpts{work: compareWork}
	if g.hasKey() {
		g.wrapKey(1)
		o.work = nil
	}
	if len(g.args) == 1 {
		return g.iterate(o)
	}
	// min(a, b, c): the arguments are the elements.
	return g.run.step(sumWork(g.run, g.args, compareWork))
}

func preSorted(g *gate) error {
	// A sort compares each element about log2(n) times.
	factor := 32
	if len(g.args) > 0 {
		if n := starlark.Len(g.args[0]); n >= 0 {
			factor = bits.Len(uint(n)) + 1
		}
	}
	o := iterOpts{elem: 16, work: func(v starlark.Value, limit int) int { return mul(compareWork(v, limit/factor+1), factor) }}
	if g.hasKey() {
		g.wrapKey(factor)
		o.elem, o.work = 32, nil
	}
	return g.iterate(o)
}

func preZip(g *gate) error {
	rows := -1
	for _, a := range g.args {
		if n := starlark.Len(a); n >= 0 && (rows < 0 || n < rows) {
			rows = n
		}
	}
	// A row is a tuple of one element per argument, its header boxed, in a list.
	row := 16 + 32 + 16*len(g.args)
	if rows >= 0 {
		if err := g.run.charge(mul(rows, row), func() string {
			return fmt.Sprintf("zip() would make %s tuples", formatCount(rows))
		}); err != nil {
			return err
		}
		row = 0
	}
	for i, a := range g.args {
		if it, ok := a.(starlark.Iterable); ok {
			g.args[i] = checked(&checkedIterable{inner: it, run: g.run, name: "zip()", elemBytes: row}, starlark.Len(a))
		}
	}
	return nil
}

// preDict guards dict() and dict.update: a dict argument is walked as its items, so that the
// walk is the guard's.
func preDict(g *gate) error {
	if len(g.args) == 1 {
		if d, ok := g.args[0].(*starlark.Dict); ok {
			if err := g.charge(mul(d.Len(), costPair)); err != nil {
				return err
			}
			items := d.Items()
			pairs := make([]starlark.Value, len(items))
			for i, kv := range items {
				pairs[i] = kv
			}
			g.args[0] = starlark.NewList(pairs)
		}
	}
	if err := g.charge(mul(len(g.kwargs), costEntry)); err != nil {
		return err
	}
	return g.iterate(iterOpts{elem: costEntry, work: keyHash})
}

// preView guards dict.items, keys and values: a new list of every entry.
func preView(per int) func(g *gate) error {
	return func(g *gate) error {
		n := starlark.Len(g.b.Receiver())
		if err := g.run.step(n / 16); err != nil {
			return err
		}
		return g.charge(add(costHeader, mul(n, per)))
	}
}

// preStore guards list.append and list.insert: one more slot, and what it now holds.
func preStore(g *gate) error {
	if len(g.args) == 0 {
		return nil
	}
	if err := g.run.step(starlark.Len(g.b.Receiver()) / 64); err != nil {
		return err
	}
	return g.charge(costSlot + storeCost(g.args[len(g.args)-1]))
}

// preShift guards list.pop: the elements after it move down.
func preShift(g *gate) error { return g.run.step(starlark.Len(g.b.Receiver()) / 64) }

// preFind guards list.index and list.remove: a comparison with every element.
func preFind(g *gate) error {
	if len(g.args) == 0 {
		return nil
	}
	n := starlark.Len(g.b.Receiver())
	limit := remainingSteps(g.run)
	return g.run.step(mul(n, compareWork(g.args[0], limit/max(n, 1)+1)))
}

// preCase guards lower, upper, capitalize and title: a new string, longer when a letter's
// other case takes more bytes (at most half as much again).
func preCase(g *gate) error {
	if err := g.scan(); err != nil {
		return err
	}
	return g.charge(add(mul(len(g.recv()), 2), costBox))
}

func preReplace(g *gate) error {
	if err := g.scan(); err != nil {
		return err
	}
	s := g.recv()
	if len(g.args) < 2 {
		return nil
	}
	old, ok1 := g.args[0].(starlark.String)
	repl, ok2 := g.args[1].(starlark.String)
	if !ok1 || !ok2 {
		return nil
	}
	n := utf8.RuneCountInString(s) + 1
	if old != "" {
		n = strings.Count(s, string(old))
	}
	if len(g.args) > 2 {
		if c, err := starlark.AsInt32(g.args[2]); err == nil && c >= 0 {
			n = min(n, c)
		}
	}
	return g.charge(add(add(len(s), mul(n, max(len(repl)-len(old), 0))), costBox))
}

// preSplit counts the parts split and rsplit make, exactly: each is a string in a []string,
// then boxed in the list.
func preSplit(g *gate) error {
	if err := g.scan(); err != nil {
		return err
	}
	s := g.recv()
	parts := 0
	var sep starlark.Value = starlark.None
	if len(g.args) > 0 {
		sep = g.args[0]
	}
	switch sep := sep.(type) {
	case starlark.NoneType:
		parts = fields(s)
	case starlark.String:
		if sep == "" {
			return nil // an error
		}
		parts = strings.Count(s, string(sep)) + 1
	default:
		return nil // an error
	}
	need := mul(parts, 16+16+costBox)
	if g.b.Name() == "rsplit" && len(g.args) > 1 {
		need = add(need, len(s)) // the parts beyond maxsplit are joined again
	}
	return g.run.charge(add(need, costHeader), func() string {
		return fmt.Sprintf("%s() would make a list of %s strings", g.b.Name(), formatCount(parts))
	})
}

// fields counts the fields strings.Fields finds.
func fields(s string) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

func preSplitlines(g *gate) error {
	if err := g.scan(); err != nil {
		return err
	}
	lines := strings.Count(g.recv(), "\n") + 1
	return g.run.charge(add(mul(lines, 16+16+costBox), costHeader), func() string {
		return fmt.Sprintf("splitlines() would make a list of %s strings", formatCount(lines))
	})
}

// sortValues is sorted(), with the run's stop seen inside the sort: its comparisons were
// counted by the guard, but a sort of a long list can outlast the run's time. It sorts as the
// library does (stably; reversed by reversing the order, so that equal elements keep theirs).
func sortValues(g *gate) (starlark.Value, error) {
	var iterable starlark.Iterable
	var key starlark.Callable
	var reverse bool
	if err := starlark.UnpackArgs("sorted", g.args, g.kwargs, "iterable", &iterable, "key?", &key, "reverse?", &reverse); err != nil {
		return nil, err
	}
	s := &checkedSort{run: g.run}
	if n := starlark.Len(iterable); n > 0 {
		s.values = make([]starlark.Value, 0, n) // charged by the guard
	}
	iter := iterable.Iterate()
	var x starlark.Value
	for iter.Next(&x) {
		s.values = append(s.values, x)
	}
	iter.Done()
	if g.run.err != nil {
		return nil, g.run.err
	}
	if key != nil {
		s.keys = make([]starlark.Value, len(s.values))
		for i, v := range s.values {
			k, err := starlark.Call(g.thread, key, starlark.Tuple{v}, nil)
			if err != nil {
				return nil, err
			}
			s.keys[i] = k
		}
	}
	if reverse {
		sort.Stable(sort.Reverse(s))
	} else {
		sort.Stable(s)
	}
	return starlark.NewList(s.values), s.err
}

// checkedSort sorts values by keys (or themselves), stopping its comparisons once the run
// must stop or one fails.
type checkedSort struct {
	run          *starlarkRun
	keys, values []starlark.Value
	compared     int
	err          error
}

func (s *checkedSort) Len() int { return len(s.values) }

func (s *checkedSort) Less(i, j int) bool {
	if s.err != nil {
		return false
	}
	if s.compared++; s.compared%256 == 0 {
		if p := s.run.stopped.Load(); p != nil {
			s.err = *p
			return false
		}
	}
	x, y := s.values[i], s.values[j]
	if s.keys != nil {
		x, y = s.keys[i], s.keys[j]
	}
	ok, err := starlark.Compare(syntax.LT, x, y)
	if err != nil {
		s.err = err
	}
	return ok
}

func (s *checkedSort) Swap(i, j int) {
	s.values[i], s.values[j] = s.values[j], s.values[i]
	if s.keys != nil {
		s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
	}
}
