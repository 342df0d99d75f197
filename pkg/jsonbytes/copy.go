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

package jsonbytes

// CopyObjects returns a deep copy of decoded objects, for steps that must change one copy per
// destination while the others stay as they were.
func CopyObjects(objects []map[string]any) []map[string]any {
	out := make([]map[string]any, len(objects))
	for i, obj := range objects {
		out[i] = CopyValue(obj).(map[string]any)
	}
	return out
}

// CopyValue returns a deep copy of a tree of maps and slices; scalars are immutable and shared.
func CopyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = CopyValue(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = CopyValue(e)
		}
		return l
	}
	return v
}
