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
	"fmt"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
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
