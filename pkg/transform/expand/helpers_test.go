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

package expand

import (
	"encoding/json"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
)

// ksList decodes a JSON array of test objects the way processing does.
func ksList(t testing.TB, s string) []transform.Object {
	t.Helper()
	var raws []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raws); err != nil {
		t.Fatalf("bad test objects %s: %v", s, err)
	}
	objects, err := jsonbytes.DecodeObjects(raws)
	if err != nil {
		t.Fatalf("bad test objects %s: %v", s, err)
	}
	return objects
}

// ksJSON encodes a value with sorted keys, for comparisons.
func ksJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
