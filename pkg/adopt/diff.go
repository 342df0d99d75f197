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

package adopt

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// ignoredPaths are the fields every write changes, or the server keeps: no change of the
// object's content.
var ignoredPaths = map[string]bool{
	"metadata.managedFields": true, "metadata.resourceVersion": true, "metadata.generation": true,
	"metadata.creationTimestamp": true, "metadata.uid": true, "status": true,
}

// Changes lists the paths where after differs from before, each a leaf (a value that changed,
// appeared or disappeared) written as kubectl explain does (spec.template.spec.containers[0].image),
// sorted; bookkeeping fields (managed fields, resourceVersion, generation, status) are left out.
func Changes(before, after map[string]any) []string {
	var all []change
	diffValues("", before, after, true, true, &all)
	out := make([]string, len(all))
	for i, c := range all {
		out[i] = c.path
	}
	sort.Strings(out)
	return out
}

// change is one leaf that differs; removed when after lacks it.
type change struct {
	path    string
	removed bool
}

func diffValues(path string, a, b any, aHas, bHas bool, out *[]change) {
	if ignoredPaths[path] {
		return
	}
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	// A map that appears or disappears whole is listed by its leaves.
	if aIsMap && !bHas {
		bm, bIsMap = map[string]any{}, true
	}
	if bIsMap && !aHas {
		am, aIsMap = map[string]any{}, true
	}
	if aIsMap && bIsMap {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			x, xHas := am[k]
			y, yHas := bm[k]
			diffValues(joinField(path, k), x, y, xHas, yHas, out)
		}
		return
	}
	al, aIsList := a.([]any)
	bl, bIsList := b.([]any)
	if aIsList && bIsList && len(al) == len(bl) {
		for i := range al {
			diffValues(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i], true, true, out)
		}
		return
	}
	if aHas != bHas || !equalJSON(a, b) {
		*out = append(*out, change{path: path, removed: aHas && !bHas})
	}
}

// joinField appends a key to a path; a key that is no identifier (an annotation's) is
// bracketed, as kubectl's JSONPath writes it.
func joinField(path, key string) string {
	if strings.ContainsAny(key, "./[]") || key == "" {
		return path + "[" + key + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// equalJSON compares decoded JSON values: numbers by value whatever their Go type.
func equalJSON(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	case int32:
		return float64(n), true
	}
	return 0, false
}
