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

import (
	"bytes"
	"encoding/json"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes/layouttest"
)

// indentCases are compact and not, valid and not, with the characters Indent acts on inside
// strings.
var indentCases = []string{
	`{}`, `[]`, `0`, `"s"`, `null`, `true`,
	`{"a":{},"b":[],"c":[{}],"d":[[]],"e":{"f":{}}}`,
	`{"kind":"List","items":[{"a":1,"b":-2.5e3,"c":true,"d":null,"e":"x"},{"s":"{[:,]}\"\\"}]}`,
	`[1,[2,[3,{"k":[false]}]],"\u00e9\n"]`,
	`{"html":"<&>","u":"\u2028"}`,
	`{ "spaced" : [ 1 , 2 ] }`,
	`{"dup":1,"dup":2}`,
	"{\"bad\":\"\xff\"}",
	`{"a":}`, `[1,]`, `{"a":1`, ``,
}

// TestIndentIsEncodingJSONs checks Indent against encoding/json's Indent: the same output for
// every input it accepts, and an error for every input it refuses.
func TestIndentIsEncodingJSONs(t *testing.T) {
	for _, in := range indentCases {
		for _, indent := range []string{"  ", "    ", "\t"} {
			var want bytes.Buffer
			wantErr := json.Indent(&want, []byte(in), "", indent)
			got, err := Indent([]byte(in), indent)
			if (err != nil) != (wantErr != nil) {
				t.Errorf("Indent(%q): error %v, encoding/json's %v", in, err, wantErr)
				continue
			}
			if err == nil && !bytes.Equal(got, want.Bytes()) {
				t.Errorf("Indent(%q, %q):\n%s\nwant\n%s", in, indent, got, want.Bytes())
			}
		}
	}
}

// FuzzIndent checks Indent against encoding/json's Indent on any input, and that every layout
// of an accepted input indents the same.
func FuzzIndent(f *testing.F) {
	for _, in := range append(indentCases, layoutSeeds...) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want bytes.Buffer
		wantErr := json.Indent(&want, in, "", "  ")
		got, err := Indent(in, "  ")
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Indent(%q): error %v, encoding/json's %v", in, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Indent(%q):\n%s\nwant\n%s", in, got, want.Bytes())
		}
		if err != nil {
			return
		}
		// As encoding/json's, Indent keeps the space after the value: compare without it.
		got = bytes.TrimRight(got, " \t\r\n")
		for _, l := range layouttest.Layouts(in) {
			if again, err := Indent(l, "  "); err != nil || !bytes.Equal(bytes.TrimRight(again, " \t\r\n"), got) {
				t.Fatalf("Indent(%q) of a layout of %q: %v\n%s\nwant\n%s", l, in, err, again, got)
			}
		}
	})
}
