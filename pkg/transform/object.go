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
	"fmt"
	"strings"
)

// NestedString returns the string at path, or "" when it is missing or not a string.
func NestedString(obj map[string]any, path ...string) string {
	s, _ := NestedValue(obj, path...).(string)
	return s
}

// NestedMap returns the map at path, or nil.
func NestedMap(obj map[string]any, path ...string) map[string]any {
	m, _ := NestedValue(obj, path...).(map[string]any)
	return m
}

// NestedValue returns the value at path, or nil.
func NestedValue(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// EnsureMap returns the map at path, creating missing or null maps on the way.
func EnsureMap(obj map[string]any, path ...string) (map[string]any, error) {
	cur := obj
	for i, p := range path {
		switch v := cur[p].(type) {
		case map[string]any:
			cur = v
		case nil:
			m := map[string]any{}
			cur[p] = m
			cur = m
		default:
			return nil, fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
	}
	return cur, nil
}

// GVK is an object's group, version and kind.
type GVK struct {
	// Group is empty for the core group.
	Group, Version, Kind string
}

// GVKOf splits an object's apiVersion into group and version.
func GVKOf(obj Object) GVK {
	g, v := SplitAPIVersion(NestedString(obj, "apiVersion"))
	return GVK{Group: g, Version: v, Kind: NestedString(obj, "kind")}
}

// SplitAPIVersion splits "apps/v1" into "apps" and "v1"; "v1" has the empty (core) group.
func SplitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// NameOf returns metadata.name.
func NameOf(obj Object) string { return NestedString(obj, "metadata", "name") }

// NamespaceOf returns metadata.namespace.
func NamespaceOf(obj Object) string { return NestedString(obj, "metadata", "namespace") }

// Describe names an object in messages as Kustomize does: "apps/v1 Deployment ns/name".
func Describe(obj Object) string {
	id := NameOf(obj)
	if ns := NamespaceOf(obj); ns != "" {
		id = ns + "/" + id
	}
	return NestedString(obj, "apiVersion") + " " + NestedString(obj, "kind") + " " + id
}
