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
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// documentStarts returns where each document of a YAML stream starts: 0, and the line after
// each "---" line (as the API machinery's YAML reader splits a stream).
func documentStarts(data []byte) []int {
	starts := []int{0}
	for at := 0; at < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			next = at + i + 1
		}
		if line := bytes.TrimRight(data[at:next], "\r\n"); bytes.HasPrefix(line, []byte("---")) {
			starts = append(starts, next)
		}
		at = next
	}
	return starts
}

// readerFallback is a document the fast reader leaves to sigs.k8s.io/yaml, and why: the line
// where it stopped, and what sigs.k8s.io/yaml says of the document.
type readerFallback struct {
	file, path string
	line       int
	text       string
	rejected   error
}

func (f readerFallback) String() string {
	s := fmt.Sprintf("%s:%d: %s left to sigs.k8s.io/yaml at %q", f.file, f.line, f.path, f.text)
	if f.rejected != nil {
		s += fmt.Sprintf(" (which refuses it: %v)", f.rejected)
	}
	return s
}

// fallbacksOf lists what of data the fast reader leaves to sigs.k8s.io/yaml on each path a
// caller takes: Read or YAMLToJSON of each document, YAMLToJSONStrict of each (the strict
// decoder's), and OnlyDocument of the whole stream (the server's). JSON is kept as it is.
func fallbacksOf(file string, data []byte) []readerFallback {
	if looksLikeJSON(data) {
		return nil
	}
	var found []readerFallback
	for _, start := range documentStarts(data) {
		for _, strict := range []bool{false, true} {
			p := parser{src: data, positions: !strict, strict: strict, pos: start, lineStart: start}
			if _, err := p.read(); err != errBail {
				continue
			}
			path := "document"
			if strict {
				path = "strict document"
			}
			doc := data[start:]
			if next := bytes.Index(doc, []byte("\n---")); next >= 0 {
				doc = doc[:next+1]
			}
			convert := yaml.YAMLToJSON
			if strict {
				convert = yaml.YAMLToJSONStrict
			}
			_, rejected := convert(doc)
			line := bytes.Count(data[:min(p.pos, len(data))], []byte("\n"))
			text, _, _ := strings.Cut(string(data[min(p.lineStart, len(data)):]), "\n")
			found = append(found, readerFallback{file: file, path: fmt.Sprintf("%s at %d", path, start), line: line + 1, text: text, rejected: rejected})
		}
	}
	if _, _, _, ok := OnlyDocument(data); !ok {
		var rejected error
		if _, documents := oneDocumentAsBefore(data); documents < 0 {
			rejected = fmt.Errorf("a document of the stream is not YAML")
		}
		found = append(found, readerFallback{file: file, path: "the stream (OnlyDocument)", rejected: rejected})
	}
	return found
}

// TestReaderFallbacks lists every document of the corpus and of the repository that the fast
// reader leaves to sigs.k8s.io/yaml, on any of its paths, and fails on each that
// sigs.k8s.io/yaml reads: the fallback is several times slower, and none of these files needs
// it. Documents it refuses (a test's broken input) are left to it for its error's words. It
// runs in make corpus.
func TestReaderFallbacks(t *testing.T) {
	files := readerFiles(t)
	left, refused := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, fb := range fallbacksOf(f, data) {
			if fb.rejected != nil {
				refused++
				t.Log(fb)
				continue
			}
			left++
			t.Error(fb)
		}
	}
	t.Logf("%d files: %d documents left to sigs.k8s.io/yaml that it reads, %d that it refuses", len(files), left, refused)
}
