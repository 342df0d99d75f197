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
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// Objects cross into Starlark as dicts (keys sorted, so a script sees the same order on every
// run), lists, strings, ints of any size, floats, bools and None, and come back the same way.

// toStarlark converts a decoded JSON value.
func toStarlark(v any) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(v)
	case string:
		return starlark.String(v)
	case json.Number:
		s := string(v)
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
		elems := make([]starlark.Value, len(v))
		for i, e := range v {
			elems[i] = toStarlark(e)
		}
		return starlark.NewList(elems)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := starlark.NewDict(len(v))
		for _, k := range keys {
			_ = d.SetKey(starlark.String(k), toStarlark(v[k]))
		}
		return d
	}
	return starlark.String(fmt.Sprint(v))
}

// errStarlarkOutput is a script's result passing the request's output budget.
var errStarlarkOutput = errors.New("the Starlark script's output passes the request's output limit")

// fromStarlark converts a value back, spending its approximate JSON size from budget unless
// budget is nil (no bound), and refusing values JSON has no form for.
func fromStarlark(v starlark.Value, budget *int, depth int) (any, error) {
	if depth > maxStarlarkDepth {
		return nil, fmt.Errorf("nested more than %d levels deep", maxStarlarkDepth)
	}
	spend := func(n int) error {
		if budget == nil {
			return nil
		}
		if *budget -= n; *budget < 0 {
			return errStarlarkOutput
		}
		return nil
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, spend(4)
	case starlark.Bool:
		return bool(v), spend(5)
	case starlark.String:
		return string(v), spend(len(v) + 2)
	case starlark.Int:
		s := v.String()
		return json.Number(s), spend(len(s))
	case starlark.Float:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%v has no JSON form", f)
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return json.Number(s), spend(len(s))
	case *starlark.Dict:
		out := make(map[string]any, v.Len())
		for _, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("a dict key must be a string, not %s", kv[0].Type())
			}
			e, err := fromStarlark(kv[1], budget, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[string(k)] = e
			if err := spend(len(k) + 4); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		out := make([]any, seq.Len())
		for i := range out {
			e, err := fromStarlark(seq.Index(i), budget, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = e
		}
		return out, spend(len(out) + 2)
	}
	return nil, fmt.Errorf("a %s has no JSON form", v.Type())
}
