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

package lint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"stencil.dev/stencil/pkg/lint"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
)

// checker is the type check stencil lint --schema-dir testdata/crds runs.
func checker(t testing.TB) *typecheck.Checker {
	t.Helper()
	set, err := typecheck.LoadDir("testdata/crds")
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubeschemas.Checker(typecheck.Static{Set: set, Source: "--schema-dir"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBrokenTemplates lints each template of testdata/broken and compares its findings
// (errors and warnings) with NAME.want, line, column, severity and rule. Each finding with a
// field path must also point at that field in the file: the text at its line and column is
// the path's last member name (or, for an element or a field left out, what the nearest
// ancestor the file has starts with).
func TestBrokenTemplates(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*")
	if err != nil {
		t.Fatal(err)
	}
	c := checker(t)
	own, err := kubeschemas.TemplateChecker()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".want") {
			continue
		}
		checked++
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(file + ".want")
			if err != nil {
				t.Fatal(err)
			}
			ds := lint.File(context.Background(), file, data, lint.Options{Checker: c, Template: own, Plugins: plugin.Policy{Starlark: true}})
			var got []string
			for _, d := range ds {
				if d.Severity == typecheck.Note {
					continue
				}
				got = append(got, fmt.Sprintf("%d:%d %s %s", d.Line, d.Column, d.Severity, d.Rule))
				pointsAt(t, data, d)
			}
			if g, w := strings.Join(got, "\n"), strings.TrimSpace(string(want)); g != w {
				var text strings.Builder
				_ = lint.WriteText(&text, ds)
				t.Errorf("findings:\n%s\nwant:\n%s\nas text:\n%s", g, w, text.String())
			}
		})
	}
	if checked < 7 {
		t.Fatalf("only %d templates in testdata/broken", checked)
	}
}

// pointsAt fails unless d's line and column are where its field, or the nearest ancestor the
// file writes, is written.
func pointsAt(t *testing.T, data []byte, d lint.Diagnostic) {
	t.Helper()
	if d.Path == "" {
		return
	}
	lines := strings.Split(string(data), "\n")
	if d.Line < 1 || d.Line > len(lines) {
		t.Errorf("%s: line %d is not in the file", d.Path, d.Line)
		return
	}
	line := lines[d.Line-1]
	if d.Column < 1 || d.Column > utf8.RuneCountInString(line) {
		t.Errorf("%s: column %d is not in line %q", d.Path, d.Column, line)
		return
	}
	at := strings.TrimLeft(string([]rune(line)[d.Column-1:]), `"`)
	p, err := positions.ParsePath(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	index, err := positions.Read("", data)
	if d.Document > 0 {
		// The document's own fields: each document is its own template.
		index, err = positions.ReadDocument("", data, documentStart(t, data, d.Document))
	}
	if err != nil {
		t.Fatal(err)
	}
	_, n := index.Nearest(p)
	if n <= 0 {
		t.Errorf("%s: the file has none of its path, yet it points at %d:%d", d.Path, d.Line, d.Column)
		return
	}
	if last := p[n-1]; !last.IsIndex && !strings.HasPrefix(at, last.Key) {
		t.Errorf("%s points at %d:%d, %q, not at %q", d.Path, d.Line, d.Column, at, last.Key)
	}
}

// documentStart is where the nth document of data that holds something starts (from 1).
func documentStart(t *testing.T, data []byte, n int) int {
	t.Helper()
	docs, _ := process.Documents(data)
	for _, d := range docs {
		if process.HoldsSomething(data[d.Start:d.End]) {
			if n--; n == 0 {
				return d.Start
			}
		}
	}
	t.Fatalf("no document %d", n)
	return 0
}

// TestEveryDocumentIsLinted: a file of several documents is linted document by document, as
// kubectl create -f sends them: the second template's refusals are reported (before, only the
// first document was read and the file linted clean of them), each finding names its document,
// and a document of another kind is noted, not linted.
func TestEveryDocumentIsLinted(t *testing.T) {
	data, err := os.ReadFile("testdata/broken/multi-document.yaml")
	if err != nil {
		t.Fatal(err)
	}
	documents := map[string]int{}
	for _, d := range lint.File(context.Background(), "m.yaml", data, lint.Options{}) {
		documents[fmt.Sprintf("%d:%d %s", d.Line, d.Column, d.Rule)] = d.Document
	}
	want := map[string]int{"21:3 refused": 2, "26:10 refused": 2, "29:1 not-a-template": 3, "36:1 unreadable": 4}
	if fmt.Sprint(documents) != fmt.Sprint(want) {
		t.Errorf("findings by document: %v, want %v", documents, want)
	}
}
