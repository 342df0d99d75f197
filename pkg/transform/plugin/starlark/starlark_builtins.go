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
	"sync"

	"go.starlark.net/starlark"
)

// Every built-in function and method go.starlark.net gives a script has a guard here, found
// by its name (universe functions) or its receiver's type and name (methods). A built-in
// without one is refused when called, so a built-in a new version of the library adds fails
// closed, and TestStarlarkEveryBuiltinIsGuarded, which lists the library's own tables, fails.
// A guard's pre runs before the built-in: it counts the steps of the work, charges the memory
// the built-in will make, refuses what passes a bound, and hands iterables that make their
// elements as they go (range) to the built-in wrapped, so that its loop counts steps and
// sees the run's stop in every iteration. The few built-ins whose loops no argument reaches
// (a set's union copies the set first) have a call of their own that checks as it goes.

// builtinSpec is how one built-in is guarded.
type builtinSpec struct {
	pre  func(g *gate) error
	call func(g *gate) (starlark.Value, error)
}

// gate is one call of a built-in, as its guard sees it.
type gate struct {
	thread *starlark.Thread
	run    *starlarkRun
	b      *starlark.Builtin
	args   starlark.Tuple
	kwargs []starlark.Tuple
}

// builtinKey names a built-in in builtinSpecs: len, or string.split.
func builtinKey(b *starlark.Builtin) string {
	if r := b.Receiver(); r != nil {
		return r.Type() + "." + b.Name()
	}
	return b.Name()
}

// methodSpecs are the guards of methods by receiver type and name, so that a call finds its
// guard without making a key.
var methodSpecs = sync.OnceValue(func() map[string]map[string]builtinSpec {
	out := map[string]map[string]builtinSpec{}
	for key, spec := range builtinSpecs {
		if typ, name, ok := strings.Cut(key, "."); ok {
			if out[typ] == nil {
				out[typ] = map[string]builtinSpec{}
			}
			out[typ][name] = spec
		}
	}
	return out
})

// specOf finds b's guard.
func specOf(b *starlark.Builtin) (builtinSpec, bool) {
	if r := b.Receiver(); r != nil {
		spec, ok := methodSpecs()[r.Type()][b.Name()]
		return spec, ok
	}
	spec, ok := builtinSpecs[b.Name()]
	return spec, ok
}

// callBuiltin calls b through its guard.
func callBuiltin(thread *starlark.Thread, run *starlarkRun, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	spec, ok := specOf(b)
	if !ok {
		return nil, fmt.Errorf("%s is not available to Stencil's Starlark transformers: no guard bounds it", builtinKey(b))
	}
	if err := run.step(0); err != nil {
		return nil, err
	}
	g := &gate{thread: thread, run: run, b: b, args: args, kwargs: kwargs}
	if spec.pre != nil {
		if err := spec.pre(g); err != nil {
			return nil, err
		}
	}
	var v starlark.Value
	var err error
	if spec.call != nil {
		v, err = spec.call(g)
	} else {
		// The guard's own call made the frame the built-in would have had.
		v, err = b.CallInternal(thread, g.args, g.kwargs)
	}
	if run.err != nil {
		// A wrapped iterable stopped the built-in's loop early: its result is partial.
		return nil, run.err
	}
	return v, err
}

// recv is the method's receiver string.
func (g *gate) recv() string {
	s, _ := g.b.Receiver().(starlark.String)
	return string(s)
}

// charge spends n bytes for what the built-in makes.
func (g *gate) charge(n int) error {
	return g.run.charge(n, func() string { return fmt.Sprintf("%s() would make %s", g.b.Name(), formatBytes(n)) })
}

// scan counts the steps of a built-in reading its receiver string and its string arguments.
func (g *gate) scan() error {
	n := len(g.recv())
	for _, a := range g.args {
		if s, ok := a.(starlark.String); ok {
			n = add(n, len(s))
		}
	}
	return g.run.step(n / scanBytesPerStep)
}

// iterOpts are how a built-in walks its iterable arguments.
type iterOpts struct {
	// elem is the bytes the built-in keeps per element (a list's slot, a dict's entry).
	elem int
	// inPlace marks a built-in that may add to the list it walks (l.extend(l)): a list or
	// tuple the run holds is handed to it as it is, its length charged ahead.
	inPlace bool
	// work counts the steps of one element beyond one (a comparison, a hash); nil for none.
	work func(v starlark.Value, limit int) int
	// from is the first positional argument walked (zip and union walk them all).
	from int
}

// iterate charges what the built-in will make of its iterable arguments (positional from
// o.from, and keyword arguments but key), and hands them to it wrapped, so that its loop
// counts steps and looks at the clock and the request at every element.
func (g *gate) iterate(o iterOpts) error {
	for i := o.from; i < len(g.args); i++ {
		v, err := g.walk(g.args[i], o)
		if err != nil {
			return err
		}
		g.args[i] = v
	}
	for i, kv := range g.kwargs {
		if kv[0] == starlark.String("key") {
			continue
		}
		v, err := g.walk(kv[1], o)
		if err != nil {
			return err
		}
		g.kwargs[i] = starlark.Tuple{kv[0], v}
	}
	return nil
}

func (g *gate) walk(v starlark.Value, o iterOpts) (starlark.Value, error) {
	it, ok := v.(starlark.Iterable)
	if !ok {
		return v, nil
	}
	n := starlark.Len(v)
	if n >= 0 {
		per := o.elem
		if lazy(v) && per > 0 && boxesElems(v) {
			per += costBox
		}
		if err := g.run.charge(mul(n, per), func() string {
			return fmt.Sprintf("%s() would hold %s elements", g.b.Name(), formatCount(n))
		}); err != nil {
			return nil, err
		}
	}
	if o.inPlace && !lazy(v) {
		steps := n
		if o.work != nil {
			steps = sumWork(g.run, it, o.work)
		}
		return v, g.run.step(steps)
	}
	elem := 0
	if n < 0 {
		elem = o.elem + costSlot + costBox // elements made as it goes, appended, boxed
	}
	return checked(&checkedIterable{inner: it, run: g.run, name: g.b.Name() + "()", elemBytes: elem, work: o.work}, n), nil
}

// boxesElems reports the lazy iterables whose elements are new boxed values (a string's
// elements); a range's and bytes' elements are small integers, which are not.
func boxesElems(v starlark.Value) bool {
	t := v.Type()
	return t != "range" && t != "bytes.elems"
}

// sumWork adds up the work of every element of a held collection, stopping past the limit.
func sumWork(run *starlarkRun, it starlark.Iterable, work func(starlark.Value, int) int) int {
	limit := remainingSteps(run)
	total := 0
	iter := it.Iterate()
	defer iter.Done()
	var e starlark.Value
	for iter.Next(&e) && total <= limit {
		total = add(total, 1+work(e, limit-total))
	}
	return total
}

// wrapKey wraps the key= of sorted, min and max, so that what it returns is weighed too.
func (g *gate) wrapKey(factor int) {
	for i, kv := range g.kwargs {
		if kv[0] == starlark.String("key") {
			if fn, ok := kv[1].(starlark.Callable); ok {
				g.kwargs[i] = starlark.Tuple{kv[0], &checkedKey{fn: fn, run: g.run, factor: factor}}
			}
		}
	}
}

// hasKey reports a key= argument.
func (g *gate) hasKey() bool {
	for _, kv := range g.kwargs {
		if kv[0] == starlark.String("key") && kv[1] != starlark.None {
			return true
		}
	}
	return false
}

// Simple guards, shared by many built-ins.

func small(n int) func(g *gate) error { return func(g *gate) error { return g.charge(n) } }

func scanning(extra int) func(g *gate) error {
	return func(g *gate) error {
		if err := g.scan(); err != nil {
			return err
		}
		return g.charge(extra)
	}
}

func walking(o iterOpts) func(g *gate) error { return func(g *gate) error { return g.iterate(o) } }

func hashingArg(entry bool) func(g *gate) error {
	return func(g *gate) error {
		if len(g.args) == 0 {
			return nil
		}
		if err := hashStep(g.run, g.args[0]); err != nil {
			return err
		}
		if !entry {
			return nil
		}
		cost := costEntry
		if len(g.args) > 1 {
			cost += storeCost(g.args[1])
		}
		return g.charge(cost)
	}
}

// keyHash is the hash work of a (key, value) pair's key.
func keyHash(p starlark.Value, limit int) int {
	if pair, ok := p.(starlark.Indexable); ok && pair.Len() == 2 {
		return hashWork(pair.Index(0), limit)
	}
	return 1
}

// builtinSpecs guards every built-in function and method; see TestStarlarkEveryBuiltinIsGuarded.
var builtinSpecs = map[string]builtinSpec{
	// The universe.
	"abs":       {pre: preCopyArg},
	"all":       {pre: walking(iterOpts{})},
	"any":       {pre: walking(iterOpts{})},
	"bool":      {},
	"bytes":     {pre: preBytes},
	"chr":       {pre: small(costBox + 4)},
	"dict":      {pre: preDict},
	"dir":       {pre: small(64 * 64)},
	"enumerate": {pre: walking(iterOpts{elem: costPair})},
	"fail":      {pre: preWrite},
	"float":     {pre: small(8)},
	"getattr":   {pre: small(costFunc)},
	"hasattr":   {},
	"hash":      {pre: scanning(0)},
	"int":       {pre: preInt},
	"len":       {},
	"list":      {pre: walking(iterOpts{elem: 16})},
	"max":       {pre: preMinMax},
	"min":       {pre: preMinMax},
	"ord":       {},
	"print":     {pre: preWrite},
	"range":     {pre: small(costHeader)},
	"repr":      {pre: preWrite},
	"reversed":  {pre: walking(iterOpts{elem: 16})},
	"set":       {pre: walking(iterOpts{elem: costEntry, work: hashWork})},
	"sorted":    {pre: preSorted, call: sortValues},
	"str":       {pre: preWrite},
	"tuple":     {pre: walking(iterOpts{elem: 16})},
	"type":      {pre: small(costBox)},
	"zip":       {pre: preZip},

	// Methods of bytes.
	"bytes.elems": {pre: small(costHeader)},

	// Methods of dict.
	"dict.clear":      {},
	"dict.get":        {pre: hashingArg(false)},
	"dict.items":      {pre: preView(costPair)},
	"dict.keys":       {pre: preView(16)},
	"dict.pop":        {pre: hashingArg(false)},
	"dict.popitem":    {},
	"dict.setdefault": {pre: hashingArg(true)},
	"dict.update":     {pre: preDict},
	"dict.values":     {pre: preView(16)},

	// Methods of list.
	"list.append": {pre: preStore},
	"list.clear":  {},
	"list.extend": {pre: walking(iterOpts{elem: costSlot, inPlace: true})},
	"list.index":  {pre: preFind},
	"list.insert": {pre: preStore},
	"list.pop":    {pre: preShift},
	"list.remove": {pre: preFind},

	// Methods of set.
	"set.add":                  {pre: hashingArg(true)},
	"set.clear":                {},
	"set.difference":           {call: setOperation},
	"set.discard":              {pre: hashingArg(false)},
	"set.intersection":         {call: setOperation},
	"set.issubset":             {pre: walking(iterOpts{work: hashWork})},
	"set.issuperset":           {pre: walking(iterOpts{work: hashWork})},
	"set.pop":                  {},
	"set.remove":               {pre: hashingArg(false)},
	"set.symmetric_difference": {call: setOperation},
	"set.union":                {call: setOperation},
	"set.update":               {pre: walking(iterOpts{elem: costEntry, work: hashWork})},

	// Methods of string.
	"string.capitalize":     {pre: preCase},
	"string.codepoint_ords": {pre: small(costHeader)},
	"string.codepoints":     {pre: small(costHeader)},
	"string.count":          {pre: scanning(0)},
	"string.elem_ords":      {pre: small(costHeader)},
	"string.elems":          {pre: small(costHeader)},
	"string.endswith":       {pre: scanning(0)},
	"string.find":           {pre: scanning(0)},
	"string.format":         {pre: preFormat},
	"string.index":          {pre: scanning(0)},
	"string.isalnum":        {pre: scanning(0)},
	"string.isalpha":        {pre: scanning(0)},
	"string.isdigit":        {pre: scanning(0)},
	"string.islower":        {pre: scanning(0)},
	"string.isspace":        {pre: scanning(0)},
	"string.istitle":        {pre: scanning(0)},
	"string.isupper":        {pre: scanning(0)},
	"string.join":           {call: joinStrings},
	"string.lower":          {pre: preCase},
	"string.lstrip":         {pre: scanning(costBox)},
	"string.partition":      {pre: scanning(costHeader + 3*(16+costBox))},
	"string.removeprefix":   {pre: scanning(costBox)},
	"string.removesuffix":   {pre: scanning(costBox)},
	"string.replace":        {pre: preReplace},
	"string.rfind":          {pre: scanning(0)},
	"string.rindex":         {pre: scanning(0)},
	"string.rpartition":     {pre: scanning(costHeader + 3*(16+costBox))},
	"string.rsplit":         {pre: preSplit},
	"string.rstrip":         {pre: scanning(costBox)},
	"string.split":          {pre: preSplit},
	"string.splitlines":     {pre: preSplitlines},
	"string.startswith":     {pre: scanning(0)},
	"string.strip":          {pre: scanning(costBox)},
	"string.title":          {pre: preCase},
	"string.upper":          {pre: preCase},
}
