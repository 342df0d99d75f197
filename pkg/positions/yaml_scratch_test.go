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
	"strings"
	"testing"
)

// TestPooledScratchKeepsNoKeys reads a document of many members, then small ones, then
// documents the emitter gives up on inside a mapping (two keys one as strings; aliases past
// the bound): after each read, every pooled scratch's room of members must be zero, so that the
// pool keeps no slice of a request's YAML alive. A read clears only the members it wrote, so
// a read that left one uncleared (the emitter stopped by a panic, say) fails here.
func TestPooledScratchKeepsNoKeys(t *testing.T) {
	var large strings.Builder
	for i := range 300 {
		fmt.Fprintf(&large, "key%d:\n", i)
		for j := range 5 {
			fmt.Fprintf(&large, "  inner%d: value%d\n", j, j)
		}
	}
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := range 8 {
		bomb += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", 'b'+i, 'b'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i, 'a'+i)
	}
	docs := []string{
		large.String(),
		"kind: Template\nmetadata:\n  name: small\n",
		"top:\n  many: 1\n  keys: 2\n  here: 3\n  1: one\n  \"1\": two\n",
		bomb,
		"a: 1\n",
	}
	for round := range 20 {
		for i, doc := range docs {
			_, _ = YAMLToJSON([]byte(doc))
			// Whatever scratch the pool gives (the one just used, most often), its members'
			// whole room is zero.
			s := scratchPool.Get().(*scratch)
			for k, a := range s.assigns[:cap(s.assigns)] {
				if a.key != nil || a.prefix != 0 || a.typed != (typedKey{}) || a.knode != 0 || a.val != 0 {
					t.Fatalf("round %d, after document %d: the pooled scratch keeps member %d (%q)", round, i, k, a.key)
				}
			}
			scratchPool.Put(s)
		}
	}
}
