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

package remove

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks that parsePath never panics, that every error carries an offset inside the
// input, and that every accepted path has a canonical form that parses back to itself.
// Accepted paths are also evaluated, so the evaluators meet every shape the parser allows.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`$.metadata.labels["app.kubernetes.io/name"]`, `$.spec.ports[*].nodePort`, `$[-1]`,
		`$["\uD83D\uDE00\n"]`, `$..a`, `$["\x41"]`, `$`, `$[01]`, `$.ñ`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePath(s)
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Fatalf("parsePath(%q): error %T is not a *syntaxError", s, err)
			}
			if se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("parsePath(%q): offset %d outside the input", s, se.Offset)
			}
			return
		}
		if len(p) == 0 {
			t.Fatalf("parsePath(%q) accepted a path without segments", s)
		}
		canon := p.String()
		again, err := parsePath(canon)
		if err != nil {
			t.Fatalf("parsePath(%q).String() = %q does not parse: %v", s, canon, err)
		}
		if !reflect.DeepEqual(again, p) {
			t.Fatalf("parsePath(%q) = %#v but its canonical form %q parses to %#v", s, p, canon, again)
		}
		if again.String() != canon {
			t.Fatalf("canonical form of %q is not stable: %q then %q", s, canon, again.String())
		}
		doc := map[string]any{
			"a": map[string]any{"b": []any{map[string]any{"c": "x"}, nil, "s", []any{1.0}}},
			"":  nil, "ñ": []any{map[string]any{}},
		}
		_ = selectValues(doc, p)
		p.RemoveFrom(doc)
	})
}
