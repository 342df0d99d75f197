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
	"math"

	"go.starlark.net/starlark"
)

// What values cost: their bytes on the heap (shallowSize, storeCost), the bytes of writing
// them out (deepSize), and the work of comparing or hashing them (compareWork, hashWork),
// which the guards charge before an operation runs.

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
