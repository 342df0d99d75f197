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
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// mustParse is parsePath for the paths of the tests; it panics on error.
func mustParse(s string) Path {
	p, err := parsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

func m(name string) segment { return segment{Kind: memberSegment, Name: name} }
func ix(i int64) segment    { return segment{Kind: indexSegment, Index: i} }

var star = segment{Kind: wildcardSegment}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Path
	}{
		// KubeStellar cases 17-19 and 24 (lexer_test and verified probes).
		{"case17 shorthand", `$.xyz`, Path{m("xyz")}},
		{"case18 bracket string", `$["foo.bar/baz"]`, Path{m("foo.bar/baz")}},
		{"case19 bracket then shorthand", `$["foo.bar/baz"].zork`, Path{m("foo.bar/baz"), m("zork")}},
		{"case19 shorthand then bracket", `$.zot["foo.bar/baz"]`, Path{m("zot"), m("foo.bar/baz")}},
		{"case24 escaped quote", `$["a\"b"]`, Path{m(`a"b`)}},
		{"case24 two brackets", `$["a"]["b"]`, Path{m("a"), m("b")}},
		{"case24 label", `$.metadata.labels["app.kubernetes.io/name"]`, Path{m("metadata"), m("labels"), m("app.kubernetes.io/name")}},
		{"case24 non-ASCII shorthand", `$.ñ`, Path{m("ñ")}},
		{"empty string member", `$[""]`, Path{m("")}},
		{"underscore and digits", `$._a1.b_2`, Path{m("_a1"), m("b_2")}},
		{"unescaped single quote", `$["it's"]`, Path{m("it's")}},
		// RFC 9535 escapes, and only those.
		{"rfc9535 escapes", `$["\"\\\/\b\f\n\r\t"]`, Path{m("\"\\/\b\f\n\r\t")}},
		{"unicode escape", `$["\u00e9\u00C9"]`, Path{m("éÉ")}},
		{"surrogate pair", `$["\uD83D\uDE00"]`, Path{m("😀")}},
		{"raw non-ASCII in string", `$["日本"]`, Path{m("日本")}},
		// Stencil extensions to KubeStellar's subset (case 23 says KubeStellar rejects them).
		{"case23 extension wildcard", `$[*]`, Path{star}},
		{"case23 extension index", `$[0]`, Path{ix(0)}},
		{"case23 extension negative index", `$[-1]`, Path{ix(-1)}},
		{"ports nodePort", `$.spec.ports[*].nodePort`, Path{m("spec"), m("ports"), star, m("nodePort")}},
		{"containers by index", `$.spec.containers[12].env[-2]`, Path{m("spec"), m("containers"), ix(12), m("env"), ix(-2)}},
		{"largest index", `$[9007199254740991]`, Path{ix(1<<53 - 1)}},
		{"smallest index", `$[-9007199254740991]`, Path{ix(-(1<<53 - 1))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePath(tt.in)
			if err != nil {
				t.Fatalf("parsePath(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parsePath(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			// The canonical form parses back to the same path.
			again, err := parsePath(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("parsePath(%q.String() = %q) = %#v, %v", tt.in, got.String(), again, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		offset int
		msg    string // substring of the message
	}{
		{"case15 empty", ``, 0, "empty path"},
		{"case16 no dollar", `'xyz`, 0, `starts with "$"`},
		{"case20 dot at end", `$.`, 2, "end of path"},
		{"case20 open bracket", `$[`, 2, "end of path"},
		{"case20 empty brackets", `$[]`, 2, "empty brackets"},
		{"case21 dollar alone", `$`, 1, "whole object"},
		{"case22 trailing space", `$.a `, 3, "whitespace"},
		{"case22 space after dollar", `$ .a`, 1, "whitespace"},
		{"case22 space before string", `$[ "a"]`, 2, "whitespace"},
		{"case22 space after string", `$["a" ]`, 5, "whitespace"},
		{"case23 descendant", `$..a`, 1, "descendant"},
		{"case23 dot wildcard", `$.*`, 2, `use "[*]"`},
		{"case23 filter", `$.a[?(@.x)]`, 4, "filter"},
		{"case23 single quotes", `$['a']`, 2, "single-quoted"},
		{"case23 union", `$["a","b"]`, 5, "unions"},
		{"case23 leading digit", `$.1a`, 2, "member name"},
		{"case23 dash in name", `$.a-b`, 3, `'-'`},
		{"case23 trailing dot", `$.a.`, 4, "end of path"},
		// KubeStellar accepts these through its JavaScript string decoder (case 25); RFC 9535
		// does not, and neither does Stencil.
		{"case25 deliberate difference hex escape", `$["\x41"]`, 3, "invalid escape"},
		{"case25 deliberate difference escaped single quote", `$["\'"]`, 3, `\'`},
		{"case25 deliberate difference unknown escape", `$["\q"]`, 3, "invalid escape"},
		{"octal escape", `$["\1"]`, 3, "invalid escape"},
		{"braced unicode escape", `$["\u{1F600}"]`, 3, "four hex digits"},
		{"uppercase U escape", `$["\U0041"]`, 3, "invalid escape"},
		{"raw tab in string", "$[\"a\tb\"]", 4, "control character"},
		{"raw newline in string", "$[\"a\nb\"]", 4, "control character"},
		{"lone high surrogate", `$["\uD800"]`, 3, "surrogate"},
		{"lone low surrogate", `$["\uDC00"]`, 3, "surrogate"},
		{"high then non-low", `$["\uD800\u0041"]`, 9, "not a low surrogate"},
		{"unterminated string", `$["abc`, 6, "unterminated"},
		{"unterminated escape", `$["\`, 4, "unterminated"},
		{"missing close bracket", `$["a"`, 5, "end of path"},
		{"leading zero", `$[01]`, 2, "leading zero"},
		{"minus zero", `$[-0]`, 2, "-0"},
		{"minus alone", `$[-]`, 3, "digit"},
		{"index too large", `$[9007199254740992]`, 2, "out of range"},
		{"index overflows int64", `$[99999999999999999999]`, 2, "out of range"},
		{"slice", `$[1:2]`, 3, "slices"},
		{"invalid UTF-8 in name", "$.a\xff", 3, "UTF-8"},
		{"invalid UTF-8 in string", "$[\"\xff\"]", 3, "UTF-8"},
		{"junk after dollar", `$a`, 1, `'a'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePath(tt.in)
			if err == nil {
				t.Fatalf("parsePath(%q) = %v, want an error", tt.in, p)
			}
			var se *syntaxError
			if !errors.As(err, &se) {
				t.Fatalf("parsePath(%q) error %T, want *syntaxError", tt.in, err)
			}
			if se.Offset != tt.offset || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("parsePath(%q) = %q (offset %d), want offset %d and %q", tt.in, err, se.Offset, tt.offset, tt.msg)
			}
		})
	}
}

func TestString(t *testing.T) {
	p := Path{m("a b"), m("x"), m("1"), m("\x01\"\\"), ix(-3), star, m("")}
	const want = `$["a b"].x["1"]["\u0001\"\\"][-3][*][""]`
	if got := p.String(); got != want {
		t.Fatalf("String() = %s, want %s", got, want)
	}
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var v map[string]any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func encode(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSelect is KubeStellar's eval_test (case 26), plus the extensions.
func TestSelect(t *testing.T) {
	const doc = `{"abc":1,"def":{"x":"yz","abc":true},"ghi":null,"arr":[{"n":1},{"n":2},{"m":3}]}`
	tests := []struct {
		path string
		want string
	}{
		{`$.abc`, `[1]`},
		{`$["def"].abc`, `[true]`},
		{`$.def`, `[{"abc":true,"x":"yz"}]`},
		{`$.ghi`, `[null]`},
		{`$.nope`, `null`},
		{`$.ghi.x`, `null`},
		{`$.abc.x`, `null`},
		{`$.def[*]`, `[true,"yz"]`},
		{`$.arr[*].n`, `[1,2]`},
		{`$.arr[-1]`, `[{"m":3}]`},
		{`$.arr[3]`, `null`},
		{`$.arr[-4]`, `null`},
		{`$.arr.n`, `null`},
		{`$.def[0]`, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := encode(t, selectValues(decode(t, doc), mustParse(tt.path)))
			if got != tt.want {
				t.Fatalf("selectValues(%s) = %s, want %s", tt.path, got, tt.want)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	// KubeStellar's case 27 document.
	const case27 = `{"a":{"b":1,"c":[{"d":1}]},"f":null}`
	const svc = `{"spec":{"ports":[{"port":80,"nodePort":30080},{"port":81},"junk"],"x":[1,2,3]}}`
	tests := []struct {
		name string
		doc  string
		path string
		want string
	}{
		{"case27 removes b", case27, `$.a.b`, `{"a":{"c":[{"d":1}]},"f":null}`},
		{"case27 missing member is a no-op", case27, `$.a.zz`, case27},
		{"case27 member of array is a no-op", case27, `$.a.c.d`, case27},
		{"case27 through null is a no-op", case27, `$.f.x`, case27},
		{"case27 removes the null-valued key", case27, `$.f`, `{"a":{"b":1,"c":[{"d":1}]}}`},
		{"missing intermediate", case27, `$.x.y.z`, case27},
		{"wildcard member of each element", svc, `$.spec.ports[*].nodePort`, `{"spec":{"ports":[{"port":80},{"port":81},"junk"],"x":[1,2,3]}}`},
		{"index removes the element", svc, `$.spec.x[1]`, `{"spec":{"ports":[{"nodePort":30080,"port":80},{"port":81},"junk"],"x":[1,3]}}`},
		{"negative index", svc, `$.spec.x[-1]`, `{"spec":{"ports":[{"nodePort":30080,"port":80},{"port":81},"junk"],"x":[1,2]}}`},
		{"index out of range", svc, `$.spec.x[3]`, svc},
		{"negative index out of range", svc, `$.spec.x[-4]`, svc},
		{"index into element", svc, `$.spec.ports[0].port`, `{"spec":{"ports":[{"nodePort":30080},{"port":81},"junk"],"x":[1,2,3]}}`},
		{"wildcard empties an array", svc, `$.spec.x[*]`, `{"spec":{"ports":[{"nodePort":30080,"port":80},{"port":81},"junk"],"x":[]}}`},
		{"wildcard empties an object", svc, `$.spec[*]`, `{"spec":{}}`},
		{"index on object is a no-op", svc, `$.spec[0]`, svc},
		{"index at root is a no-op", svc, `$[0]`, svc},
		{"wildcard at root", svc, `$[*]`, `{}`},
		{"nested wildcards", `{"a":[{"b":[1,2]},{"b":[3]}]}`, `$.a[*].b[0]`, `{"a":[{"b":[2]},{"b":[]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := decode(t, tt.doc)
			mustParse(tt.path).RemoveFrom(doc)
			if got, want := encode(t, doc), encode(t, decode(t, tt.want)); got != want {
				t.Fatalf("Remove(%s) = %s, want %s", tt.path, got, want)
			}
		})
	}
}

// TestRemoveDoesNotAliasCallerSlices checks that cutting an element out of an array leaves
// another holder of the old slice untouched.
func TestRemoveDoesNotAliasCallerSlices(t *testing.T) {
	arr := []any{"a", "b", "c"}
	doc := map[string]any{"x": arr}
	mustParse(`$.x[0]`).RemoveFrom(doc)
	if !reflect.DeepEqual(arr, []any{"a", "b", "c"}) {
		t.Fatalf("caller's slice changed: %v", arr)
	}
	if !reflect.DeepEqual(doc["x"], []any{"b", "c"}) {
		t.Fatalf("doc = %v", doc)
	}
}

// selectValues returns the values the path selects in root: array elements in order, and the members
// a wildcard selects in an object in key order, so results are deterministic.
func selectValues(root any, p Path) []any {
	nodes := []any{root}
	for _, seg := range p {
		var next []any
		for _, n := range nodes {
			switch n := n.(type) {
			case map[string]any:
				switch seg.Kind {
				case memberSegment:
					if v, ok := n[seg.Name]; ok {
						next = append(next, v)
					}
				case wildcardSegment:
					for _, k := range slices.Sorted(maps.Keys(n)) {
						next = append(next, n[k])
					}
				}
			case []any:
				switch seg.Kind {
				case indexSegment:
					if i, ok := resolveIndex(seg.Index, len(n)); ok {
						next = append(next, n[i])
					}
				case wildcardSegment:
					next = append(next, n...)
				}
			}
		}
		nodes = next
	}
	return nodes
}
