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

package positions

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// treeDocs are JSON documents the reader of the tree must read as the scan did: whitespace,
// repeated and escaped member names, wide objects in and out of order, empty containers,
// nested arrays, scalars of every kind, and bytes that are not JSON.
var treeDocs = []string{
	`{"a":{"b":[1,{"c":2}],"d.e":"x"}}`,
	" {\n \"a\" : [ 1 , { \"b\" : { } , \"c\" : [ ] } ] ,\r\n\t\"z\" : null } ",
	`{"a":1,"a":{"b":2},"c":3}`,
	`{"a\u002eb":1,"a":{"b":2},"q\"uote":3,"é":4,"\u00e9":5}`,
	`{"z":1,"y":2,"x":3,"w":4,"v":5,"u":6,"t":7,"s":8,"r":9,"y":{"deep":true},"q\u0031":10}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":{"l":[[],[[]],{}]}}`,
	`{"app.kubernetes.io":{"name":1},"app.kubernetes.io/name":"x","app":{"kubernetes":{"io/name":2}}}`,
	`[[1,2],[3,[4,5]],{"a":-1.5e3,"b":true,"c":false,"d":null,"e":""}]`,
	`"just a string"`, `42`, `null`, `{}`, `[]`, ``, `   `,
	`{"a": }`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":[1,2}`, `{"a":1} trailing`, `{"a":"unterminated}`,
	`{"a":{"b":1,"x" 2},"c":3}`, `[{"a":1},`, `{,"a":1}`, `[,1]`,
}

// treePaths are the paths looked up in every document besides those the document has.
var treePaths = []string{"", "a", "a.b", "a.b[1]", "a.b[1].c", "a.b[2]", "a.d.e", "a[d.e]", "a.b.c", "[0]", "[1][1][0]",
	"[2].a", "z", "y.deep", "k.l[1][0]", "app.kubernetes.io/name", "app.kubernetes.io.name", "app.kubernetes.io/name.x",
	"[a.b]", "a.b.c.d.e.f", "q\"uote", "é"}

// TestTreeAgreesWithScan holds the tree to the navigation it replaced (navigate_scan_test.go)
// on the cases above and the README's example template: see agreeOnDocument.
func TestTreeAgreesWithScan(t *testing.T) {
	lookups := 0
	for i, d := range treeDocs {
		lookups += agreeOnDocument(t, fmt.Sprintf("case %d", i), []byte(d))
	}
	lookups += agreeOnDocument(t, "template", []byte(template))
	if x, _ := Read("t.yaml", []byte(template)); x.structure() == nil || !x.entryPerNode {
		t.Error("the places of the YAML reader's fields are not found by their node")
	}
	t.Logf("%d lookups agree", lookups)
}

// TestTreeCorpus is TestTreeAgreesWithScan on every JSON and YAML file of the corpus and the
// repository. The scan it compares with is quadratic in a file, so that it runs in make corpus
// without the race detector, and checks a large file at 200 of its fields.
func TestTreeCorpus(t *testing.T) {
	files := readerFiles(t)
	lookups := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lookups += agreeOnDocument(t, f, data)
	}
	t.Logf("%d lookups in %d files agree", lookups, len(files))
}

// agreeOnDocument checks that, for every field of the document and for paths it does not have
// (a child too many, an index past the end, a member name with dots written after a dot, the
// paths of treePaths), Nearest and Lookup find the same field, the same prefix length and the
// same places as the scan, and that Walk visits the same fields in the same order. It returns
// how many lookups it checked.
func agreeOnDocument(t *testing.T, name string, data []byte) int {
	x, err := Read(name, data)
	if err != nil || x.byPath != nil {
		// A file the reader refuses has no Index; one left to YAMLToJSON is placed by
		// path, not navigated.
		x = ReadJSON(name, data)
	}
	var paths []Path
	scanWalk(x.json, func(p Path) { paths = append(paths, p) })
	var walked []Path
	x.walkOffsets(nil, func(p Path, _, _ int) bool { walked = append(walked, append(Path(nil), p...)); return true })
	if fmt.Sprint(walked) != fmt.Sprint(paths) {
		t.Fatalf("%s: Walk visits %v, the scan %v", name, walked, paths)
	}
	lookups := 0
	stride := max(1, len(paths)/200)
	for i := 0; i < len(paths); i += stride {
		p := paths[i]
		variants := []Path{p, p.Child("absent"), p.Elem(1 << 20)}
		if n := len(p); n > 0 && !p[n-1].IsIndex && strings.Contains(p[n-1].Key, ".") {
			// The member name with dots, as a diagnostic writes it after a dot.
			split, _ := ParsePath(p[:n-1].String() + "." + p[n-1].Key)
			variants = append(variants, split)
		}
		for _, v := range variants {
			agree(t, name, x, v)
			lookups++
		}
	}
	for _, s := range treePaths {
		if p, err := ParsePath(s); err == nil {
			agree(t, name, x, p)
			lookups++
		}
	}
	return lookups
}

// agree checks one lookup of p in x against the scan.
func agree(t *testing.T, name string, x *Index, p Path) {
	t.Helper()
	if x.structure() == nil {
		if json.Valid(x.json) {
			t.Fatalf("%s: no tree of valid JSON", name)
		}
		if s, n := x.Nearest(p); n != -1 || s != (Span{}) {
			t.Fatalf("%s: Nearest(%s) found %d steps of bytes that are not JSON", name, p, n)
		}
		return
	}
	key, value, n := scanDeepest(x.json, p)
	span, got := x.Nearest(p)
	if got != n {
		t.Fatalf("%s: Nearest(%s) found %d steps, the scan %d", name, p, got, n)
	}
	if n >= 0 && span != x.span(key, value) {
		t.Fatalf("%s: Nearest(%s) = %+v, the scan %+v", name, p, span, x.span(key, value))
	}
	if at, got := x.NearestStart(p); got != n || at != span.Start() {
		t.Fatalf("%s: NearestStart(%s) = %v %d, Nearest %v %d", name, p, at, got, span.Start(), n)
	}
	if s, ok := x.LookupPath(p); ok != (n == len(p)) || ok && s != span {
		t.Fatalf("%s: LookupPath(%s) = %+v %v, the scan found %d of %d steps", name, p, s, ok, n, len(p))
	}
}

// scanWalk calls fn with the path of every field of data, in order, as the scan walked it.
func scanWalk(data []byte, fn func(Path)) {
	v := skipSpace(data, 0)
	if v >= len(data) || valueEnd(data, v) < 0 {
		return
	}
	var walk func(v int, p Path)
	walk = func(v int, p Path) {
		fn(append(Path(nil), p...))
		switch data[v] {
		case '{':
			scanMembers(data, v, func(_, val int, name string) bool { walk(val, p.Child(name)); return true })
		case '[':
			scanElements(data, v, func(i, val int) bool { walk(val, p.Elem(i)); return true })
		}
	}
	if json.Valid(data) {
		walk(v, nil)
	}
}

// FuzzTreeLookup holds the tree to the scan on any bytes: the fields of a valid document and
// the paths of treePaths.
func FuzzTreeLookup(f *testing.F) {
	for _, d := range treeDocs {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, data string) {
		x := ReadJSON("f.json", []byte(data))
		var paths []Path
		scanWalk(x.json, func(p Path) { paths = append(paths, p) })
		for _, s := range treePaths {
			if p, err := ParsePath(s); err == nil {
				paths = append(paths, p)
			}
		}
		for _, p := range paths {
			agree(t, "fuzz", x, p)
		}
	})
}

// TestLongLineColumns: the column of a place on a long line (JSON written on one line) counts
// its characters as on a short one, multi-byte ones included, at any offset.
func TestLongLineColumns(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\"first\": 1}\n[")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, `{"näme":"wéb-%d","ok":true},`, i)
	}
	b.WriteString("{}]\n")
	src := []byte(b.String())
	x := ReadJSON("long.json", src)
	lineStart := strings.IndexByte(b.String(), '\n') + 1
	for off := 0; off <= len(src); off += 997 {
		want := Pos{Line: 1, Column: off + 1, Offset: off}
		if off >= lineStart {
			want = Pos{Line: 2, Column: len([]rune(string(src[lineStart:off]))) + 1, Offset: off}
		}
		if got := x.PosOf(off); got != want {
			t.Fatalf("PosOf(%d) = %+v, want %+v", off, got, want)
		}
	}
}

// TestTreeIsBounded: the tree of a file's JSON, read on its first lookup, holds 32 bytes a
// value (its node, its place among its parent's children, and while it is read), and a value
// takes at least two bytes of JSON: a file of nothing but tiny values (a million zeros, or
// colons in a string, which size the arrays) costs at most 17 times its size, read once, however
// many lookups follow.
func TestTreeIsBounded(t *testing.T) {
	zeros := []byte(`{"a":[` + strings.Repeat("0,", 1<<20) + `0]}`)
	colons := []byte(`{"a":"` + strings.Repeat(":", 2<<20) + `"}`)
	for name, data := range map[string][]byte{"zeros": zeros, "colons in a string": colons} {
		x := ReadJSON("f.json", data)
		used := allocated(func() {
			for range 100 {
				x.Locate("a[1000]")
			}
		})
		t.Logf("%s: %d KiB of JSON, %d KiB for its tree and lines", name, len(data)>>10, used>>10)
		if used > 17*uint64(len(data)) {
			t.Errorf("%s: %d bytes for %d of JSON", name, used, len(data))
		}
	}
}
