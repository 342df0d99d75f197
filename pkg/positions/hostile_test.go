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
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/heaptest"
)

// billionLaughs is the YAML alias bomb: nine levels of nine aliases to the level below, 387
// million strings once expanded, in under 1 KB; block is its block-style form.
func billionLaughs(block bool) string {
	var b strings.Builder
	b.WriteString("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, level := range strings.Split("bcdefghi", "") {
		if block {
			fmt.Fprintf(&b, "%s: &%s\n", level, level)
			for i := 0; i < 9; i++ {
				fmt.Fprintf(&b, "- *%s\n", prev)
			}
		} else {
			fmt.Fprintf(&b, "%s: &%s [%s]\n", level, level, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		}
		prev = level
	}
	return b.String()
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileYAML: who sends YAML (a request body to processedtemplates, a file given to
// stencil process --local, lint or convert) may send an alias bomb or nesting deeper than any
// template. Each is refused with sigs.k8s.io/yaml's own words, by the reader with its positions
// and without, allocating a bounded amount (measured: what is allowed is far below what the
// expansion or a recursion would take); a document that is only large reads in memory
// proportional to its size.
func TestHostileYAML(t *testing.T) {
	cases := []struct {
		name, doc, refusal string
		maxBytes           uint64
	}{
		{"billion laughs, flow", billionLaughs(false), "excessive aliasing", 4 << 20},
		{"billion laughs, block", billionLaughs(true), "excessive aliasing", 4 << 20},
		{"100,000 nested flow sequences", "a: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n", "exceeded max depth", 64 << 20},
		{"100,000 nested flow mappings", strings.Repeat("{a: ", 100_000) + "1" + strings.Repeat("}", 100_000) + "\n", "exceeded max depth", 64 << 20},
		{"20,000 nested block sequences on a line", strings.Repeat("- ", 20_000) + "x\n", "exceeded max depth", 64 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.doc)
			var errs [2]error
			used := allocated(func() {
				_, errs[0] = YAMLToJSON(data)
				_, errs[1] = Read("bomb.yaml", data)
			})
			for _, err := range errs {
				if err == nil || !strings.Contains(err.Error(), c.refusal) {
					t.Errorf("want a refusal saying %q, got %v", c.refusal, err)
				}
			}
			t.Logf("%d bytes refused, %.1f MiB allocated", len(data), float64(used)/(1<<20))
			if used > c.maxBytes {
				t.Errorf("refusing %d bytes allocated %.1f MiB, more than %.0f MiB", len(data), float64(used)/(1<<20), float64(c.maxBytes)/(1<<20))
			}
		})
	}
	t.Run("large but fair", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("objects:\n")
		for b.Len() < 8<<20 {
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c%d}\n  data: {key: value}\n", b.Len())
		}
		data := []byte(b.String())
		var x *Index
		var err error
		used := allocated(func() { x, err = Read("large.yaml", data) })
		if err != nil || x.Locate("objects[0].metadata.name") != "large.yaml:4:14" {
			t.Fatalf("a large document: %v", err)
		}
		if _, fastPath := fast(data); !fastPath {
			t.Error("a large document of plain YAML is left to sigs.k8s.io/yaml")
		}
		sigs := allocated(func() { _, _ = yaml.YAMLToJSON(data) })
		t.Logf("%.1f MiB read with positions, %.1f MiB allocated (sigs.k8s.io/yaml's YAMLToJSON: %.1f MiB)",
			float64(len(data))/(1<<20), float64(used)/(1<<20), float64(sigs)/(1<<20))
		if used > 16*uint64(len(data)) || used > sigs/2 {
			t.Errorf("reading %d bytes allocated %d: more than 16 times the input, or half of sigs.k8s.io/yaml's %d", len(data), used, sigs)
		}
	})
}

// TestLookupAbsentPaths: a diagnostic may name any path (one processing added, one of a
// parameter given on the command line, one of another file); looking it up in any document
// (YAML read by the fast reader or left to sigs.k8s.io/yaml, JSON, a scalar, an empty file,
// no file at all) answers "no place" or a place, and never panics.
func TestLookupAbsentPaths(t *testing.T) {
	docs := map[string]string{
		"yaml":     "a:\n  b: [1, {c: 2}]\n  'd.e': x\n",
		"fallback": "a:\n  b: [1, {c: 2}]\t# a tab: left to sigs.k8s.io/yaml\n",
		"json":     `{"a":{"b":[1,{"c":2}],"d.e":"x"}}`,
		"scalar":   "just text\n",
		"empty":    "",
		"null":     "null\n",
		"array":    "[1, 2]\n",
	}
	paths := []string{"", "a", "a.b[1].c", "a.b[2]", "a.b[-1]", "a.b[99999999999999999999]", "a.b.c", "a.b[x]",
		"a[0]", "a.d.e", "a[d.e]", "zz", "a.b[1].c.d.e", "[0]", "[1][2]", "/a/b/1/c", "/a/b/9", "/", "//", "/~2",
		"a..b", ".a", "a.", "a[", "a]", "[", "]", "a[b", "a.b[1]c", strings.Repeat("a.", 10_000) + "a",
		strings.Repeat("[0]", 10_000), "objects[0].spec.template.spec.containers[0].image", "\xff\xfe", "a\x00b"}
	for name, doc := range docs {
		x, err := Read(name+".yaml", []byte(doc))
		if err != nil && name != "empty" {
			t.Fatalf("%s: %v", name, err)
		}
		for _, index := range []*Index{x, nil} {
			for _, p := range paths {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: looking up %.40q panics: %v", name, p, r)
						}
					}()
					_, _ = index.Lookup(p)
					_ = index.Locate(p)
					if parsed, err := ParsePath(p); err == nil {
						_, _ = index.Nearest(parsed)
						index.Walk(parsed, func(Path, Span) bool { return true })
					}
				}()
			}
			_, _ = index.PathAt(1, 1)
			_, _ = index.PathAt(-1, 1<<30)
			_ = index.PosOf(-5)
			_ = index.PosOf(1 << 30)
		}
	}
	x, _ := Read("t.yaml", []byte(docs["yaml"]))
	if at := x.Locate("a.b[1].c"); at != "t.yaml:2:11" {
		t.Errorf("a.b[1].c at %q", at)
	}
	for _, absent := range []string{"zz", "[0]", "a.b[x]"} {
		if s, ok := x.Lookup(absent); ok {
			t.Errorf("%s is not in the file, yet found at %v", absent, s)
		}
	}
}

// aliasedScalar is issue 37's body: one scalar of size bytes, anchored once and aliased n
// times. tail is added to the document (a tab in a comment leaves it to sigs.k8s.io/yaml).
func aliasedScalar(size, n int, tail string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: bomb}\n")
	b.WriteString("message: &big " + strings.Repeat("x", size) + "\n")
	b.WriteString("objects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data:\n")
	for i := range n {
		fmt.Fprintf(&b, "    k%d: *big\n", i)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// TestAliasExpansionIsBoundedInBytes is issue 37's finding 4 at the reader: a document whose
// aliases stand for more than MaxJSONBytes of its size is refused, before it is written, by
// every reader of the package (the fast reader, with positions and without, and the path
// through sigs.k8s.io/yaml), with an error that says why, allocating a small multiple of the
// document. Go.yaml.in/yaml/v2's node budget lets all of these through: it counts nodes, and
// each of these repeats few.
func TestAliasExpansionIsBoundedInBytes(t *testing.T) {
	nested := func() []byte {
		// Two levels of 30 aliases to the level below, the first a 100 KB scalar: 961 nodes
		// (within v2's budget), 90 MB of JSON.
		var b strings.Builder
		b.WriteString("l0: &l0 " + strings.Repeat("y", 100<<10) + "\n")
		for level := 1; level <= 2; level++ {
			fmt.Fprintf(&b, "l%d: &l%d [%s]\n", level, level, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", level-1), 30), ", "))
		}
		return []byte(b.String())
	}
	merges := func(n int) []byte {
		// A merge of the same mapping n times: the value each repeat replaces is decoded (and
		// written, then taken back) once per repeat.
		return []byte("m: &m {k: " + strings.Repeat("z", 1<<20) + "}\nx:\n  <<: [" + strings.TrimSuffix(strings.Repeat("*m, ", n), ", ") + "]\n")
	}
	manySmall := func() []byte {
		// 200,000 aliases of a 100-byte scalar: 20 MB from 1 MB, within v2's node budget.
		return []byte("a: &a " + strings.Repeat("w", 100) + "\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", 200_000), ", ") + "]\n")
	}
	cases := []struct {
		name string
		doc  []byte
	}{
		{"1 MB aliased 500 times", aliasedScalar(1<<20, 500, "")},
		{"1 MB aliased 2000 times", aliasedScalar(1<<20, 2000, "")},
		{"1 MB aliased 500 times, left to sigs.k8s.io/yaml", aliasedScalar(1<<20, 500, "#\ttab\n")},
		{"1 MB aliased 500 times, with a tag", aliasedScalar(1<<20, 500, "tagged: !!str t\n")},
		{"nested aliases", nested()},
		{"nested aliases, left to sigs.k8s.io/yaml", append(nested(), "#\ttab\n"...)},
		{"a merge key of 300 aliases", merges(300)},
		{"many small aliases", manySmall()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errs [3]error
			var peak uint64
			for i, read := range []func() error{
				func() error { _, err := YAMLToJSON(c.doc); return err },
				func() error { _, _, err := YAMLToJSONRepeats(c.doc); return err },
				func() error { _, err := Read("bomb.yaml", c.doc); return err },
			} {
				peak = max(peak, heaptest.Peak(func() { errs[i] = read() }))
			}
			for _, err := range errs {
				var refusal *ExpansionError
				if !errors.As(err, &refusal) || refusal.Source != len(c.doc) || refusal.Limit != MaxJSONBytes(len(c.doc)) ||
					!strings.Contains(err.Error(), "aliases expand") {
					t.Fatalf("want the expansion refused, got %v", err)
				}
			}
			t.Logf("%d bytes refused, at most %.1f MiB held by a read: %v", len(c.doc), float64(peak)/(1<<20), errs[0])
			// A read may write up to its bound (the output and the buffer it grows from), and
			// v2's decode of a document left to sigs.k8s.io/yaml holds a few times its size:
			// far below the expansion, which is 20 to 2,000 times.
			if peak > 32*uint64(len(c.doc))+(4<<20) {
				t.Errorf("refusing %d bytes held %.1f MiB", len(c.doc), float64(peak)/(1<<20))
			}
		})
	}
	t.Run("anchors that repeat a little are read", func(t *testing.T) {
		doc := []byte("env: &env [{name: A, value: a}, {name: B, value: b}]\nbase: &base {image: x, env: *env}\n" +
			"containers:\n- <<: *base\n  name: one\n- <<: *base\n  name: two\n- {<<: *base, name: three, env: *env}\n")
		sameAsSigs(t, doc)
		if _, fastPath := fast(doc); !fastPath {
			t.Error("a document with a few aliases is left to sigs.k8s.io/yaml")
		}
	})
}
