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

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
)

// compareItems compares two lists of objects as JSON values: member order and the spelling
// of numbers aside.
func compareItems(got, want []json.RawMessage) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d items, OpenShift made %d", len(got), len(want))
	}
	for i := range got {
		g, err := normalJSON(got[i])
		if err != nil {
			return fmt.Errorf("items[%d]: %v", i, err)
		}
		w, err := normalJSON(want[i])
		if err != nil {
			return fmt.Errorf("items[%d] of OpenShift: %v", i, err)
		}
		if where := firstDifference(g, w, fmt.Sprintf("items[%d]", i)); where != "" {
			return fmt.Errorf("differs from OpenShift's output at %s", where)
		}
	}
	return nil
}

// normalJSON decodes raw with its numbers as exact rationals, so that 1, 1.0 and 1e0 compare
// equal and no precision is lost.
func normalJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalNumbers(v)
}

// normalNumbers replaces every json.Number in v by its exact value as a *big.Rat's string.
func normalNumbers(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			n, err := normalNumbers(e)
			if err != nil {
				return nil, err
			}
			v[k] = n
		}
	case []any:
		for i, e := range v {
			n, err := normalNumbers(e)
			if err != nil {
				return nil, err
			}
			v[i] = n
		}
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		if !ok {
			return nil, fmt.Errorf("the number %s", v)
		}
		return number(r.RatString()), nil
	}
	return v, nil
}

// number is a JSON number in a canonical spelling, apart from strings.
type number string

// firstDifference names the first place where got and want differ, "" when they do not.
func firstDifference(got, want any, at string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an object", at, short(got))
		}
		keys := make([]string, 0, len(g)+len(w))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, both := w[k]; !both {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, inGot := g[k]
			wv, inWant := w[k]
			switch {
			case !inGot:
				return fmt.Sprintf("%s.%s: missing, want %s", at, k, short(wv))
			case !inWant:
				return fmt.Sprintf("%s.%s: got %s, OpenShift has no such member", at, k, short(gv))
			}
			if d := firstDifference(gv, wv, at+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %s, want %s", at, short(got), short(want))
		}
		for i := range w {
			if d := firstDifference(g[i], w[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if got != want {
		return fmt.Sprintf("%s: got %s, want %s", at, short(got), short(want))
	}
	return ""
}

// short prints a value for a failure message, cut to a readable length.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
