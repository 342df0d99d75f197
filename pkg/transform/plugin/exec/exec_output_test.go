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

package exec

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestPluginOutputCounting: the documents of a plugin's stdout are counted as it arrives, in
// pieces of any size, the way readDocs splits them afterwards.
func TestPluginOutputCounting(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		docs   int
	}{
		{"separators before every document", "---\n{\"a\":1}\n---\n{\"a\":2}\n---\n{\"a\":3}\n", 3},
		{"no separator before the first", "a: 1\n---\nb: 2\n", 2},
		{"content after the separator", "--- {\"a\":1}\n--- {\"a\":2}\n", 2},
		{"CRLF and tabs", "---\r\n{\"a\":1}\r\n---\t# two\r\n{\"a\":2}\r\n", 2},
		{"not separators", "a: |\n  ---\n----\n-- -\nb: ---\n", 1},
		{"empty documents are not objects", "---\n---\n\n---\n{\"a\":1}\n---\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(splitDocs([]byte(tc.stream))); got != tc.docs {
				t.Fatalf("split into %d documents, want %d", got, tc.docs)
			}
			for _, piece := range []int{1, 2, 3, 5, len(tc.stream)} {
				c := docCounter{limit: 1 << 20}
				for i := 0; i < len(tc.stream); i += piece {
					c.count([]byte(tc.stream[i:min(i+piece, len(tc.stream))]))
				}
				// Counted as it arrives, a separator is a document begun: empty ones too, and
				// the first document may come without one.
				if c.seen < tc.docs-1 || c.seen > strings.Count(tc.stream, "---") {
					t.Fatalf("in pieces of %d: counted %d separators for %d documents", piece, c.seen, tc.docs)
				}
			}
		})
	}
	c := docCounter{limit: 2}
	if c.count([]byte("---\na\n---\nb\n---\nc\n")) || !c.count([]byte("---\nd\n")) {
		t.Fatalf("the counter of limit 2 should pass it at the fourth separator, not before (seen %d)", c.seen)
	}
}

// TestPluginOutputBounds: readDocs refuses too many documents, a ResourceList of too many
// items and too much YAML before it decodes any, and reads JSON and YAML alike.
func TestPluginOutputBounds(t *testing.T) {
	limits := outputLimits{objects: 3, yamlBytes: 64}
	docs, err := readDocs([]byte("---\n{\"kind\":\"A\",\"n\":1.50}\n--- {\"kind\":\"B\"}\n# only a comment\n---\nkind: C\n"), limits)
	if err != nil || len(docs) != 3 || docs[1]["kind"] != "B" || docs[2]["kind"] != "C" {
		t.Fatalf("read %v, %v", docs, err)
	}
	if n := fmt.Sprint(docs[0]["n"]); n != "1.50" {
		t.Errorf("a JSON number is kept as written: %s", n)
	}
	for _, tc := range []struct {
		name, out string
		limits    outputLimits
		want      string
	}{
		{"too many documents", strings.Repeat("---\n{\"kind\":\"A\"}\n", 4), limits, "limit of 3 objects: it wrote 4 documents"},
		{"too many items", "{\"kind\":\"ResourceList\",\"results\":[],\"items\":[{},{},{},{}]}", outputLimits{objects: 3, resourceList: true, yamlBytes: 64},
			"limit of 3 objects: its ResourceList has more items"},
		{"too much YAML", "kind: A\ndata:\n  key: " + strings.Repeat("x", 64) + "\n", limits, "limit of 64 bytes of YAML"},
		// Within the YAML bytes, aliases may not stand for more than a few times them: 256 KiB
		// aliased 400 times is 100 MiB of trees.
		{"aliases", "kind: A\nmetadata: {name: &n " + strings.Repeat("x", 256<<10) + "}\ndata: [" + strings.TrimSuffix(strings.Repeat("*n, ", 400), ", ") + "]\n",
			outputLimits{objects: 3, yamlBytes: 1 << 20}, "aliases expand"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readDocs([]byte(tc.out), tc.limits)
			if !errors.Is(err, errPluginOutput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if n := countItems([]byte("{\"a\":{\"items\":[1,2,3,4,5]},\"items\":[1,[2,3],{\"items\":[]}]}"), 10); n != 3 {
		t.Errorf("counted %d items, want the top level's 3", n)
	}
	if n := countItems([]byte("{\"items\":[1,2,3,4,5,6,7]}"), 2); n != 3 {
		t.Errorf("counted %d items with a limit of 2, want to stop at 3", n)
	}
}
