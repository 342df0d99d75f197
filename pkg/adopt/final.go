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
	"encoding/json"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Desired is the object a takeover ends with, before the API server defaults it: the forced
// apply's answer (dryRun, made while the old managers still owned their fields) without the
// fields the takeover removes. A Secret's data keys that the render sets through stringData
// stay: the server writes those into data.
func Desired(dryRun, rendered *unstructured.Unstructured, removed []fieldpath.Path) *unstructured.Unstructured {
	out := dryRun.DeepCopy()
	stringData, _, _ := unstructured.NestedMap(rendered.Object, "stringData")
	secret := rendered.GroupVersionKind().Group == "" && rendered.GetKind() == "Secret"
	for _, p := range removed {
		if secret && len(p) == 2 && p[0].FieldName != nil && *p[0].FieldName == "data" && p[1].FieldName != nil {
			if _, set := stringData[*p[1].FieldName]; set {
				continue
			}
		}
		if node, ok := removePath(out.Object, p); ok {
			out.Object = node.(map[string]any)
		}
	}
	return out
}

// removePath removes the item p names from v (decoded JSON), and returns v as changed.
func removePath(v any, p fieldpath.Path) (any, bool) {
	if len(p) == 0 {
		return v, false
	}
	pe, rest := p[0], p[1:]
	if pe.FieldName != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return v, false
		}
		child, found := m[*pe.FieldName]
		if !found {
			return v, false
		}
		if len(rest) == 0 {
			delete(m, *pe.FieldName)
			return m, true
		}
		changed, ok := removePath(child, rest)
		m[*pe.FieldName] = changed
		return m, ok
	}
	list, ok := v.([]any)
	if !ok {
		return v, false
	}
	for i, item := range list {
		if !matches(pe, i, item) {
			continue
		}
		if len(rest) == 0 {
			return append(list[:i:i], list[i+1:]...), true
		}
		changed, ok := removePath(item, rest)
		list[i] = changed
		return list, ok
	}
	return v, false
}

// matches says whether the list item at i is the one pe names: by its keys, its value or
// its index.
func matches(pe fieldpath.PathElement, i int, item any) bool {
	switch {
	case pe.Index != nil:
		return *pe.Index == i
	case pe.Value != nil:
		return value.Equals(value.NewValueInterface(item), *pe.Value)
	case pe.Key != nil:
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		for _, f := range *pe.Key {
			v, found := m[f.Name]
			if !found || !value.Equals(value.NewValueInterface(v), f.Value) {
				return false
			}
		}
		return true
	}
	return false
}

// FinalPatch is a JSON patch that makes live the desired object, if live is as read (its
// resourceVersion): every top-level field but metadata and status replaced or removed, and
// the labels and annotations. Sent as a dry run, the API server answers the object the
// takeover ends with, defaulted and validated: an immutable field it would change is its 422.
func FinalPatch(live, desired *unstructured.Unstructured) ([]byte, error) {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value,omitempty"`
	}
	var ops []op
	if rv := live.GetResourceVersion(); rv != "" {
		ops = append(ops, op{Op: "test", Path: "/metadata/resourceVersion", Value: rv})
	}
	keys := map[string]bool{}
	for k := range live.Object {
		keys[k] = true
	}
	for k := range desired.Object {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	set := func(path string, v any, had bool) {
		switch {
		case v != nil:
			ops = append(ops, op{Op: "add", Path: path, Value: v})
		case had:
			ops = append(ops, op{Op: "remove", Path: path})
		}
	}
	for _, k := range sorted {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
			continue
		}
		_, had := live.Object[k]
		set("/"+escapePointer(k), desired.Object[k], had)
	}
	meta, _ := desired.Object["metadata"].(map[string]any)
	liveMeta, _ := live.Object["metadata"].(map[string]any)
	for _, k := range []string{"labels", "annotations"} {
		_, had := liveMeta[k]
		set("/metadata/"+k, meta[k], had)
	}
	return json.Marshal(ops)
}

// Diff lists the leaf paths where after differs from before (bookkeeping fields aside), as
// Changes does, split into the fields changed or added and those removed.
func Diff(before, after map[string]any) (changed, removed []string) {
	var all []change
	diffValues("", before, after, true, true, &all)
	for _, c := range all {
		if c.removed {
			removed = append(removed, c.path)
		} else {
			changed = append(changed, c.path)
		}
	}
	sort.Strings(changed)
	sort.Strings(removed)
	return changed, removed
}
