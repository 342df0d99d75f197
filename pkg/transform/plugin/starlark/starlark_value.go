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
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"stencil.dev/stencil/pkg/transform"
)

// Objects cross into Starlark as dicts (keys sorted, so a script sees the same order on every
// run), lists, strings, ints of any size, floats, bools and None, and come back the same way.

// Go bytes of converted values, as conversion.value makes them and as the objects given to a
// script hold them: a map's entry, a slice's element, a boxed string or number.
const (
	goMapBytes   = 320 // a small map is one group of 8 slots
	goEntryBytes = 48
	goSliceBytes = 24
	goElemBytes  = 16
	goBoxBytes   = 16
)

// toStarlark converts a decoded JSON value, adding to size what it takes as a Go value.
func toStarlark(v any, size *int) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(v)
	case string:
		*size += goBoxBytes
		return starlark.String(v)
	case json.Number:
		s := string(v)
		*size += goBoxBytes + len(s)
		if !strings.ContainsAny(s, ".eE") {
			if i, ok := new(big.Int).SetString(s, 10); ok {
				return starlark.MakeBigInt(i)
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		return starlark.Float(f)
	case float64:
		return starlark.Float(v)
	case int64:
		return starlark.MakeInt64(v)
	case []any:
		*size += goSliceBytes + goElemBytes*len(v)
		elems := make([]starlark.Value, len(v))
		for i, e := range v {
			elems[i] = toStarlark(e, size)
		}
		return starlark.NewList(elems)
	case map[string]any:
		*size += goMapBytes + goEntryBytes*len(v)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := starlark.NewDict(len(v))
		for _, k := range keys {
			_ = d.SetKey(starlark.String(k), toStarlark(v[k], size))
		}
		return d
	}
	return starlark.String(fmt.Sprint(v))
}

// errStarlarkOutput is a script's result passing the request's output budget.
var errStarlarkOutput error = starlarkOutputError{}

// starlarkOutputError is errStarlarkOutput: the output budget's error (IsOutputTooLarge) in the
// words of a Starlark script.
type starlarkOutputError struct{}

func (starlarkOutputError) Error() string {
	return "the Starlark script's output passes the request's output limit"
}

// Is makes errors.Is see the request's output budget in a script's result passing it.
func (starlarkOutputError) Is(target error) bool { return target == transform.ErrOutputTooLarge }

// conversion converts a script's result back to objects. Its output budget is the request's
// (the JSON the objects make; negative for none), its memory budget what the objects may take
// as Go values: a dict the result holds many times over becomes as many maps.
type conversion struct {
	output, memory int
	run            *starlarkRun
	// written is the JSON converted so far; raise, when set, asks the request for room for
	// objects of that size once they pass output, and answers the new output bound
	// (transform.Context.Raise).
	written int
	raise   func(size int) (int, bool)
}

func (c *conversion) spend(json, memory int) error {
	if c.output >= 0 {
		if c.written += json; c.written > c.output {
			if c.raise == nil {
				return errStarlarkOutput
			}
			var ok bool
			if c.output, ok = c.raise(c.written); !ok {
				return errStarlarkOutput
			}
		}
	}
	if c.memory -= memory; c.memory < 0 {
		if budgetPassedHook != nil {
			budgetPassedHook()
		}
		return &starlarkMemoryError{detail: "its result would take more as objects than its input and its remaining budget (a value it holds many times over is copied each time)", limit: c.run.limit}
	}
	return nil
}

// value converts v, refusing values JSON has no form for.
func (c *conversion) value(v starlark.Value, depth int) (any, error) {
	if depth > maxStarlarkDepth {
		return nil, fmt.Errorf("nested more than %d levels deep", maxStarlarkDepth)
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, c.spend(4, 0)
	case starlark.Bool:
		return bool(v), c.spend(5, 0)
	case starlark.String:
		return string(v), c.spend(len(v)+2, goBoxBytes)
	case starlark.Int:
		s := v.String()
		return json.Number(s), c.spend(len(s), goBoxBytes+len(s))
	case starlark.Float:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%v has no JSON form", f)
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.Number(s), c.spend(len(s), goBoxBytes+len(s))
	case *starlark.Dict:
		if p := c.run.stopped.Load(); p != nil {
			return nil, *p
		}
		// Items makes a pair per entry: garbage at once, and a tighter loop than Entries.
		if err := c.spend(2, goMapBytes+(goEntryBytes+56)*v.Len()); err != nil {
			return nil, err
		}
		out := make(map[string]any, v.Len())
		for _, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("a dict key must be a string, not %s", kv[0].Type())
			}
			e, err := c.value(kv[1], depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[string(k)] = e
			if err := c.spend(len(k)+4, 0); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		if err := c.spend(seq.Len()+2, goSliceBytes+goElemBytes*seq.Len()); err != nil {
			return nil, err
		}
		out := make([]any, seq.Len())
		for i := range out {
			e, err := c.value(seq.Index(i), depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s has no JSON form", v.Type())
}
