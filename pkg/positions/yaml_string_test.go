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
	"math/rand/v2"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// TestAppendJSONStringWords checks appendJSONString's words on short strings against
// AppendQuotedHTML: strings of every length up to 20 cut from memory of random bytes (each
// byte that escapes, or not), with room after them or none, into buffers with room or none.
func TestAppendJSONStringWords(t *testing.T) {
	alphabet := []byte("ab <>&\"\\\x00\x1f\x7f\xc3\xa9\xe2\x80\xa8\xff")
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 200000; n++ {
		memory := make([]byte, rng.IntN(40))
		for i := range memory {
			if rng.IntN(3) == 0 {
				memory[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				memory[i] = byte('a' + rng.IntN(26))
			}
		}
		at := rng.IntN(len(memory) + 1)
		end := at + min(rng.IntN(21), len(memory)-at)
		s := memory[at:end]
		dst := make([]byte, rng.IntN(4), rng.IntN(40)+4)
		prefix := bytes.Clone(dst)
		want := jsonbytes.AppendQuotedHTML(bytes.Clone(prefix), s)
		if got := appendJSONString(dst, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %q, want %q", s, got, want)
		}
		if bytes.Equal(want[len(prefix)+1:len(want)-1], s) {
			// Nothing to escape: appendClean's words write the same.
			dst := make([]byte, len(prefix), cap(dst))
			if got := appendClean(dst, s); !bytes.Equal(got, want) {
				t.Fatalf("appendClean(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
