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

package export

import (
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// decode reads objects as the dynamic client gives them (integers as int64).
func decode(t testing.TB, docs ...string) []Object {
	t.Helper()
	out := make([]Object, len(docs))
	for i, d := range docs {
		if err := utiljson.Unmarshal([]byte(d), &out[i]); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
	return out
}

// encode writes an object as compact JSON with sorted keys.
func encode(t testing.TB, obj Object) string {
	t.Helper()
	raw, err := jsonbytes.AppendValue(nil, obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// same fails unless got and want (JSON) are the same object.
func same(t testing.TB, got Object, want string) {
	t.Helper()
	if g, w := encode(t, got), encode(t, decode(t, want)[0]); g != w {
		t.Errorf("got  %s\nwant %s", g, w)
	}
}
