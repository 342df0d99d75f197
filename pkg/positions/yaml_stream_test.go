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
	"bufio"
	"bytes"
	"fmt"
	"io"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// streamSeeds are streams of documents as request bodies hold them.
var streamSeeds = []string{
	"---\n# Source: chart/templates/t.yaml\n---\nkind: Template\nobjects: []\n",
	"kind: Template\n---\n",
	"# only a comment\n",
	"---\n---\n--- # c\nnull\n---\n~\n",
	"a: 1\n---\nb: 2\n",
	"a: &x {k: 1}\n---\nb: *x\n",
	"a: |\n  text\n---\nb: 1\n",
	"--- a\n", "---#c\nb: 1\n", "a: 1\n...\n---\nb: 2\n", "a: 1\n---\n: bad: [\n",
	"\xef\xbb\xbf---\r\nkind: Template\r\n---\r\n",
	"a: 'x\n---\ny'\n", "a: \"x\n--- y\"\n", "a: [1,\n---\n2]\n",
	"a: |\n  x\ty\n---\nb: ':80'\n", "---\n- :8080\n---\n", "a: 1\n---\n\tb: 2\n", "a: 1\t# c\n---\nb: '\t'\n",
	// Repeated keys, whose strict words OnlyDocumentStrict gives (or leaves: an anchored or
	// empty value's line, a stream of several documents).
	"a: 1\nb:\n  c: 2\n  c: 3\na: 4\n", "\xef\xbb\xbf# c\n\na: 1\na: 2\n", "a: 1\na: &x 2\n", "a: 1\na:\n", "1: a\n1: b\ntrue: c\ny: d\ny: e\n",
	"m: &m {a: 1}\nn:\n  <<: *m\n  a: 2\n  a: 3\n", "a: 1\na: 2\n---\n", "x: '---'\nx: 1\n",
}

// oneDocumentAsBefore is what the server did with a YAML body before OnlyDocument: split by
// the API machinery's YAML reader, each document converted by sigs.k8s.io/yaml, the one that
// is not empty kept; documents is -1 when the split or a conversion failed (the body was then
// read whole).
func oneDocumentAsBefore(data []byte) (out []byte, documents int) {
	if !bytes.Contains(data, []byte("---")) {
		// Converted as it is.
		asJSON, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, -1
		}
		if trimmed := bytes.TrimSpace(asJSON); len(trimmed) == 0 || string(trimmed) == "null" {
			return []byte("null"), 0
		}
		return asJSON, 1
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, -1
		}
		asJSON, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, -1
		}
		if trimmed := bytes.TrimSpace(asJSON); len(trimmed) == 0 || string(trimmed) == "null" {
			continue
		}
		if documents++; documents == 1 {
			out = asJSON
		}
	}
	if documents == 0 {
		out = []byte("null")
	}
	return out, documents
}

func checkOnlyDocument(t *testing.T, data []byte) (fastPath bool) {
	t.Helper()
	out, documents, repeats, ok := OnlyDocument(data)
	if !ok {
		return false
	}
	if !plainMarkers(data) {
		t.Fatalf("%q: read, yet a line starts with a marker the YAML reader splits otherwise", data)
	}
	want, wantDocuments := oneDocumentAsBefore(data)
	if documents != wantDocuments || !bytes.Equal(out, want) {
		t.Fatalf("%q: OnlyDocument gives %d documents, %s; split and converted: %d, %s", data, documents, out, wantDocuments, want)
	}
	if documents == 1 {
		// The document alone, as YAMLToJSONRepeats reads it.
		if one, _, _, _ := OnlyDocument(data); !bytes.Equal(one, out) {
			t.Fatalf("%q: not the same twice", data)
		}
		if _, strictErr := yaml.YAMLToJSONStrict(data); strictErr != nil && !repeats && bytes.Count(data, []byte("---")) == 0 {
			t.Fatalf("%q: sigs.k8s.io/yaml's strict conversion refuses it (%v), yet no key is said to repeat", data, strictErr)
		}
	}
	checkOnlyDocumentStrict(t, data, out, documents, repeats)
	return true
}

// checkOnlyDocumentStrict checks OnlyDocumentStrict reads data as OnlyDocument does, and that
// the strict words it knows are YAMLToJSONStrict's, as a server's YAML decoder would have them
// (it converts a stream without "---" whole).
func checkOnlyDocumentStrict(t *testing.T, data, out []byte, documents int, repeats bool) {
	t.Helper()
	s, ok := OnlyDocumentStrict(data)
	if !ok || !bytes.Equal(s.JSON, out) || s.Documents != documents || s.Repeats != repeats {
		t.Fatalf("%q: OnlyDocumentStrict gives %v, %s, %d documents, repeats %v; OnlyDocument %s, %d, %v", data, ok, s.JSON, s.Documents, s.Repeats, out, documents, repeats)
	}
	// Into the caller's memory (filled with junk first: every byte is written), or, when what
	// the caller gives is not of the length asked, into memory of its own: the same reading.
	var given [][]byte
	for _, short := range []bool{false, true} {
		into := jsonMemoryFunc(func(n int) []byte {
			buf := bytes.Repeat([]byte{'#'}, n+1)
			given = append(given, buf)
			if short {
				return buf
			}
			return buf[:n]
		})
		in, ok := OnlyDocumentStrictInto(data, into)
		if !ok || !bytes.Equal(in.JSON, out) || in.Documents != documents || in.Repeats != repeats || fmt.Sprint(in.Strict) != fmt.Sprint(s.Strict) {
			t.Fatalf("%q: OnlyDocumentStrictInto gives %v, %s, %d documents, repeats %v; OnlyDocumentStrict %s", data, ok, in.JSON, in.Documents, in.Repeats, s.JSON)
		}
		held := false
		for _, buf := range given {
			held = held || len(in.JSON) > 0 && &in.JSON[0] == &buf[0]
		}
		// Memory given is used when it is of the length asked, for a document converted
		// (a JSON of several MB stays where the emitter wrote it: not asked then).
		if held && short || !held && !short && documents > 0 && len(given) > 0 {
			t.Fatalf("%q: the JSON is in the memory given: %v, a length that is not the one asked: %v", data, held, short)
		}
		given = given[:0]
	}
	if s.StrictKnown && (!repeats || documents != 1 || bytes.Contains(data, []byte("---"))) {
		t.Fatalf("%q: strict words said known (%v) for a stream a decoder does not convert whole or without repeats", data, s.Strict)
	}
	if !s.StrictKnown {
		return
	}
	if _, want := YAMLToJSONStrict(data); fmt.Sprint(s.Strict) != fmt.Sprint(want) || (s.Strict == nil) != (want == nil) {
		t.Fatalf("%q: strict words %v, YAMLToJSONStrict's %v", data, s.Strict, want)
	}
}

func TestOnlyDocument(t *testing.T) {
	fastPaths := 0
	for _, in := range streamSeeds {
		if checkOnlyDocument(t, []byte(in)) {
			fastPaths++
		}
	}
	for _, in := range []string{streamSeeds[0], streamSeeds[1], streamSeeds[2], streamSeeds[3], streamSeeds[4], streamSeeds[11]} {
		if _, _, _, ok := OnlyDocument([]byte(in)); !ok {
			t.Errorf("%q: the fast reader should read this stream", in)
		}
	}
	for _, in := range []string{"--- a\n", "---#c\nb: 1\n", "a: 1\n...\n---\nb: 2\n",
		// Lines the reader takes as text or as a key, each after a line break of its own kind.
		"a: 'x\n---x'\n", "a: \"x\\\n---x\"\n", "a\n---x\n", "---x: 1\n", "a: 1\n...x: 2\n", "[a,\n---x]\n",
		"a: 1\r\n---x: 2\r\n", "a: 1\n\n\n...\n", "a: 1\n# c\n---\tb\n"} {
		if _, _, _, ok := OnlyDocument([]byte(in)); ok {
			t.Errorf("%q: a marker the YAML reader splits otherwise must be left to it", in)
		}
	}
}

// FuzzOnlyDocument checks OnlyDocument against splitting and converting each document, on
// arbitrary streams and on streams of generated documents with empty ones around them.
func FuzzOnlyDocument(f *testing.F) {
	for _, in := range streamSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		checkOnlyDocument(t, data)
		g := yamlGen{choices: data}
		doc := g.doc()
		checkOnlyDocument(t, []byte("---\n# header\n---\n"+doc))
		checkOnlyDocument(t, []byte(doc+"\n---\n"+doc))
	})
}

// plainMarkers is what onlyDocument checked in a pass of its own before the reader checked the
// lines as it reads them (newline): plainMarkerLine of every line of data. A stream that
// OnlyDocument reads must pass it (checkOnlyDocument): a line the reader passed without
// checking would fail that.
func plainMarkers(data []byte) bool {
	if !plainMarkerLine(data) {
		return false
	}
	// Only a line that starts with "---" or "..." has something to check: the lines are found
	// a newline at a time, in one pass for both (bytes.Index of "\n---" also stops at every
	// newline, its first byte, and a pass for each pattern read the document twice).
	for at := 0; ; {
		i := bytes.IndexByte(data[at:], '\n')
		if i < 0 {
			return true
		}
		at += i + 1
		if at+3 <= len(data) && (data[at] == '-' || data[at] == '.') && !plainMarkerLine(data[at:]) {
			return false
		}
	}
}

// TestPlainMarkers checks the markers plainMarkers finds by pattern on the lines where they
// matter: the first line, a line after another, the last line without a line break, and
// "---" or "..." inside a line, which is no marker.
func TestPlainMarkers(t *testing.T) {
	for in, want := range map[string]bool{
		"a: 1\n":                       true,
		"---\na: 1\n":                  true,
		"--- # c\na: 1\n---  \r\nb: 2": true,
		"a: 1\n---\nb: 2\n---":         true,
		"a: '---x'\nb: ...\n":          true,
		"---x\na: 1\n":                 false,
		"a: 1\n---x\n":                 false,
		"a: 1\n--- b\n":                false,
		"a: 1\n---#c\n":                false,
		"...\na: 1\n":                  false,
		"a: 1\n...":                    false,
		"a: 1\n---\n...\n":             false,
	} {
		if got := plainMarkers([]byte(in)); got != want {
			t.Errorf("plainMarkers(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestOnlyDocumentStrict checks which streams get their strict words from the one read: a
// document without "---" whose repeated keys the fast reader words; the others are left to
// YAMLToJSONStrict (known false).
func TestOnlyDocumentStrict(t *testing.T) {
	for in, want := range map[string]string{
		"a: 1\nb:\n  c: 2\n  c: 3\na: 4\n":             "yaml: unmarshal errors:\n  line 4: key \"c\" already set in map\n  line 5: key \"a\" already set in map",
		"\xef\xbb\xbf# c\n\na: 1\na: 2\n":              "yaml: unmarshal errors:\n  line 4: key \"a\" already set in map",
		"m: &m {a: 1}\nn:\n  <<: *m\n  a: 2\n  a: 3\n": "yaml: unmarshal errors:\n  line 4: key \"a\" already set in map\n  line 5: key \"a\" already set in map",
		"a: 1\nb: 2\n": "",
	} {
		s, ok := OnlyDocumentStrict([]byte(in))
		if !ok || s.Documents != 1 {
			t.Fatalf("%q: not read (%v, %d documents)", in, ok, s.Documents)
		}
		if want == "" {
			if s.Repeats || s.StrictKnown || s.Strict != nil {
				t.Errorf("%q: no key repeats, yet repeats %v, words %v (known %v)", in, s.Repeats, s.Strict, s.StrictKnown)
			}
			continue
		}
		if !s.StrictKnown || fmt.Sprint(s.Strict) != want {
			t.Errorf("%q: words %q (known %v), want %q", in, fmt.Sprint(s.Strict), s.StrictKnown, want)
		}
		checkOnlyDocument(t, []byte(in))
	}
	for _, in := range []string{"a: 1\na: &x 2\n", "a: 1\na:\n", "a: 1\na: 2\n---\n", "x: '---'\nx: 1\n"} {
		if s, ok := OnlyDocumentStrict([]byte(in)); !ok || !s.Repeats || s.StrictKnown {
			t.Errorf("%q: read %v, repeats %v, words known %v: want the words left to YAMLToJSONStrict", in, ok, s.Repeats, s.StrictKnown)
		}
	}
}

// jsonMemoryFunc is a function as a JSONMemory.
type jsonMemoryFunc func(n int) []byte

func (f jsonMemoryFunc) JSONMemory(n int) []byte { return f(n) }
