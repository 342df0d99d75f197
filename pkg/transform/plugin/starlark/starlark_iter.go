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
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// checkedIterable hands a built-in an iterable whose every element counts a step (and its
// work), charges what the built-in keeps of it, and looks at the run's stop. A built-in's
// loop cannot return an error through an iterator, so a bound passed ends the iteration and
// is recorded in the run; the built-in's guard returns it instead of the partial result.
type checkedIterable struct {
	inner     starlark.Iterable
	run       *starlarkRun
	name      string
	elemBytes int
	work      func(v starlark.Value, limit int) int
}

var _ starlark.Iterable = (*checkedIterable)(nil)

func (c *checkedIterable) String() string        { return c.inner.String() }
func (c *checkedIterable) Type() string          { return c.inner.Type() }
func (c *checkedIterable) Freeze()               { c.inner.Freeze() }
func (c *checkedIterable) Truth() starlark.Bool  { return c.inner.Truth() }
func (c *checkedIterable) Hash() (uint32, error) { return c.inner.Hash() }
func (c *checkedIterable) Iterate() starlark.Iterator {
	return &checkedIterator{c: c, inner: c.inner.Iterate()}
}

// checkedSequence is a checkedIterable that tells its length, for a built-in to allocate
// what its guard has charged.
type checkedSequence struct {
	*checkedIterable
	n int
}

func (c checkedSequence) Len() int { return c.n }

// checked gives c its length n, when known.
func checked(c *checkedIterable, n int) starlark.Iterable {
	if n < 0 {
		return c
	}
	return checkedSequence{c, n}
}

type checkedIterator struct {
	c     *checkedIterable
	inner starlark.Iterator
	n     int
}

func (it *checkedIterator) Next(p *starlark.Value) bool {
	c := it.c
	if c.run.err != nil || !it.inner.Next(p) {
		return false
	}
	it.n++
	steps := 1
	if c.work != nil {
		steps = c.work(*p, remainingSteps(c.run))
	}
	err := c.run.step(steps)
	if err == nil {
		err = c.run.charge(c.elemBytes, func() string {
			return fmt.Sprintf("%s went past %s elements of a %s", c.name, formatCount(it.n), c.inner.Type())
		})
	}
	if err != nil {
		c.run.fail(err)
		return false
	}
	return true
}

func (it *checkedIterator) Done() { it.inner.Done() }

// checkedKey is the key= of sorted, min and max: a built-in key goes through its guard, and
// every key it returns counts the work of comparing it, factor times.
type checkedKey struct {
	fn     starlark.Callable
	run    *starlarkRun
	factor int
}

var _ starlark.Callable = (*checkedKey)(nil)

func (k *checkedKey) Name() string          { return k.fn.Name() }
func (k *checkedKey) String() string        { return k.fn.String() }
func (k *checkedKey) Type() string          { return k.fn.Type() }
func (k *checkedKey) Freeze()               { k.fn.Freeze() }
func (k *checkedKey) Truth() starlark.Bool  { return true }
func (k *checkedKey) Hash() (uint32, error) { return k.fn.Hash() }

func (k *checkedKey) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	var err error
	if b, ok := k.fn.(*starlark.Builtin); ok {
		v, err = callBuiltin(thread, k.run, b, args, kwargs)
	} else {
		v, err = starlark.Call(thread, k.fn, args, kwargs)
	}
	if err != nil {
		return nil, err
	}
	limit := remainingSteps(k.run)
	if err := k.run.step(mul(compareWork(v, limit/k.factor+1), k.factor)); err != nil {
		return nil, err
	}
	return v, nil
}

// each walks an iterable with the run's checks, charging elem bytes and counting the work of
// hashing each element.
func each(run *starlarkRun, name string, v starlark.Value, elem int, fn func(x starlark.Value) error) error {
	return eachWork(run, name, v, elem, hashWork, fn)
}

func eachWork(run *starlarkRun, name string, v starlark.Value, elem int, work func(starlark.Value, int) int, fn func(x starlark.Value) error) error {
	it, ok := v.(starlark.Iterable)
	if !ok {
		return fmt.Errorf("%s: got %s, want iterable", name, v.Type())
	}
	iter := (&checkedIterable{inner: it, run: run, name: name, elemBytes: elem, work: work}).Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		if err := fn(x); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return run.err
}

// cloneSet copies s as Set.clone does, an element at a time with the run's checks: with
// keys whose hashes collide a copy takes as long as making the set did.
func cloneSet(run *starlarkRun, name string, s *starlark.Set) (*starlark.Set, error) {
	c := starlark.NewSet(s.Len())
	return c, each(run, name, s, costEntry, c.Insert)
}

// setOperation is union, difference, intersection and symmetric_difference with the run's
// checks in their loops; the results are those of the library's own.
func setOperation(g *gate) (starlark.Value, error) {
	if len(g.kwargs) > 0 {
		return nil, fmt.Errorf("%s: does not accept keyword arguments", g.b.Name())
	}
	return setOp(g.run, g.b.Name(), g.b.Receiver().(*starlark.Set), g.args)
}

func setOp(run *starlarkRun, name string, s *starlark.Set, others starlark.Tuple) (starlark.Value, error) {
	if name != "union" {
		var other starlark.Iterable
		if err := starlark.UnpackPositionalArgs(name, others, nil, 1, &other); err != nil {
			return nil, err
		}
	}
	for i, other := range others {
		if _, ok := other.(starlark.Iterable); !ok {
			return nil, fmt.Errorf("%s: argument #%d is not iterable: %s", name, i+1, other.Type())
		}
	}
	if name == "intersection" {
		out := starlark.NewSet(0)
		return out, each(run, name, others[0], costEntry, func(x starlark.Value) error {
			found, err := s.Has(x)
			if err == nil && found {
				err = out.Insert(x)
			}
			return err
		})
	}
	out, err := cloneSet(run, name, s)
	if err != nil {
		return nil, err
	}
	for _, other := range others {
		err := each(run, name, other, costEntry, func(x starlark.Value) error {
			switch name {
			case "union":
				return out.Insert(x)
			case "difference":
				_, err := out.Delete(x)
				return err
			}
			found, err := out.Delete(x)
			if err == nil && !found {
				err = out.Insert(x)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// collectionBinary makes | & - ^ of sets, and | of dicts, with the run's checks in their
// loops; done is false for every other operation.
func collectionBinary(run *starlarkRun, token syntax.Token, x, y starlark.Value) (v starlark.Value, done bool, err error) {
	switch x := x.(type) {
	case *starlark.Set:
		ys, ok := y.(*starlark.Set)
		name := map[syntax.Token]string{syntax.PIPE: "union", syntax.MINUS: "difference",
			syntax.AMP: "intersection", syntax.CIRCUMFLEX: "symmetric_difference"}[token]
		if !ok || name == "" {
			return nil, false, nil
		}
		v, err := setOp(run, name, x, starlark.Tuple{ys})
		return v, true, err
	case *starlark.Dict:
		yd, ok := y.(*starlark.Dict)
		if !ok || token != syntax.PIPE {
			return nil, false, nil
		}
		out := starlark.NewDict(x.Len() + yd.Len())
		for _, d := range []*starlark.Dict{x, yd} {
			err := each(run, "|", d, costEntry, func(k starlark.Value) error {
				val, _, err := d.Get(k)
				if err == nil {
					err = out.SetKey(k, val)
				}
				return err
			})
			if err != nil {
				return nil, true, err
			}
		}
		return out, true, nil
	}
	return nil, false, nil
}

// joinStrings is str.join with the run's checks: it measures the result, charges it, then
// makes it in one allocation (the library's doubling buffer would hold up to twice as much).
func joinStrings(g *gate) (starlark.Value, error) {
	var iterable starlark.Iterable
	if err := starlark.UnpackPositionalArgs(g.b.Name(), g.args, g.kwargs, 1, &iterable); err != nil {
		return nil, err
	}
	sep := g.recv()
	var parts []string
	size := 0
	tooLong := func() string { return fmt.Sprintf("join() would make a string of more than %s", formatBytes(size)) }
	err := eachWork(g.run, "join", iterable, costSlot, nil, func(x starlark.Value) error {
		s, ok := starlark.AsString(x)
		if !ok {
			return fmt.Errorf("in list, want string, got %s", x.Type())
		}
		if len(parts) > 0 {
			size = add(size, len(sep))
		}
		size = add(size, len(s))
		parts = append(parts, s)
		if size > g.run.budget {
			return g.run.charge(size, tooLong)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := g.run.charge(add(size, costBox), func() string {
		return fmt.Sprintf("join() would make a string of %s", formatBytes(size))
	}); err != nil {
		return nil, err
	}
	if err := g.run.step(size / scanBytesPerStep); err != nil {
		return nil, err
	}
	return starlark.String(strings.Join(parts, sep)), nil
}

// extendList makes l += y: a list or tuple is appended as it is (l += l doubles l), another
// iterable an element at a time with the run's checks.
func extendList(run *starlarkRun, l *starlark.List, y starlark.Value) error {
	var seq starlark.Indexable
	switch y := y.(type) {
	case *starlark.List:
		seq = y
	case starlark.Tuple:
		seq = y
	}
	if seq != nil {
		n := seq.Len()
		if err := run.charge(mul(n, costSlot), func() string { return fmt.Sprintf("+= would add %s elements", formatCount(n)) }); err != nil {
			return err
		}
		if err := run.step(n / 16); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if err := l.Append(seq.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	if _, ok := y.(starlark.Iterable); !ok {
		return fmt.Errorf("unknown binary op: list + %s", y.Type())
	}
	n := starlark.Len(y)
	if err := run.charge(mul(max(n, 0), costSlot+costBox), func() string { return fmt.Sprintf("+= would add %s elements", formatCount(n)) }); err != nil {
		return err
	}
	return each(run, "+=", y, costSlot+costBox, l.Append)
}

// guardedAugIndex makes x[k] op= v, reading and writing x[k] once each.
func guardedAugIndex(run *starlarkRun, thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	op, x, k, v := args[0], args[1], args[2], args[3]
	if err := hashStep(run, k); err != nil {
		return nil, err
	}
	old, err := indexValue(x, k)
	if err != nil {
		return nil, err
	}
	z, err := guardedBinary(run, thread, starlark.Tuple{op, old, v}, nil)
	if err != nil {
		return nil, err
	}
	return guardedSetIndex(run, thread, starlark.Tuple{z, x, k}, nil)
}

// indexValue is x[k].
func indexValue(x, k starlark.Value) (starlark.Value, error) {
	switch x := x.(type) {
	case starlark.Mapping:
		v, found, err := x.Get(k)
		if err == nil && !found {
			err = fmt.Errorf("key %v not in %s", k, x.Type())
		}
		return v, err
	case starlark.Indexable:
		n := x.Len()
		i, err := starlark.AsInt32(k)
		if err != nil {
			return nil, fmt.Errorf("%s index: %s", x.Type(), err)
		}
		if i < -n || i >= n {
			return nil, outOfRange(i, n, x)
		}
		if i < 0 {
			i += n
		}
		return x.Index(i), nil
	}
	return nil, fmt.Errorf("unhandled index operation %s[%s]", x.Type(), k.Type())
}

func outOfRange(i, n int, x starlark.Value) error {
	if n == 0 {
		return fmt.Errorf("index %d out of range: empty %s", i, x.Type())
	}
	return fmt.Errorf("%s index %d out of range [%d:%d]", x.Type(), i, -n, n-1)
}
