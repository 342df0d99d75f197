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

package layouttest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestLayoutsAreTheSameDocument checks the package's promise: every layout of a JSON
// document is JSON that compacts to the same bytes, and Uniform with no separator compacts.
func TestLayoutsAreTheSameDocument(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `"s"`, `-1.5e3`, `true`, `null`,
		"{\n  \"status\": {}\n}\n", `{"a":[1,{"b":"x\"y\\","c":[]}],"d":"{[,:]}","e":null}`,
		"[ {\t} ,\r\n[ ] ]", `{"k\u0022":"\\"}`,
	} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := Uniform([]byte(in), ""); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("Uniform(%q, \"\") = %q, want %q", in, got, want.Bytes())
		}
		for _, l := range Layouts([]byte(in)) {
			var got bytes.Buffer
			if err := json.Compact(&got, l); err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("layout %q of %q compacts to %q (%v), want %q", l, in, got.Bytes(), err, want.Bytes())
			}
		}
	}
	if m := Mixed([]byte(`{"a":[1,2]}`), 7); !bytes.ContainsAny(m, " \t\r\n") {
		t.Errorf("Mixed put no space anywhere: %q", m)
	}
}
