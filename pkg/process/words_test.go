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

package process

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestSpaceAndPlainWords checks the word-at-a-time steps of the scans (skipSpace, stringEnd, plainWord) against a byte at a
// time, on words built from the bytes they must tell apart.
func TestSpaceAndPlainWords(t *testing.T) {
	alphabet := []byte(" \n\r\t\"\\$ax0~\x7f\x80\xff\x00\x1f{}[]:,")
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 24)
	for n := 0; n < 200000; n++ {
		for i := range buf {
			buf[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) == 0 {
				buf[i] = ' ' // runs of spaces
			}
		}
		size := rng.IntN(len(buf) + 1)
		src, at := buf[:size], rng.IntN(size+1)
		want := at
		for want < len(src) && (src[want] == ' ' || src[want] == '\n' || src[want] == '\r' || src[want] == '\t') {
			want++
		}
		if got := skipSpace(src, at); got != want {
			t.Fatalf("skipSpace(%q, %d) = %d, want %d", src, at, got, want)
		}
		if size > 0 {
			str := append([]byte{'"'}, src[1:]...)
			wantEnd, wantOK := len(str), false
			for j := 1; j < len(str); j++ {
				if str[j] == '\\' {
					j++
				} else if str[j] == '"' {
					wantEnd, wantOK = j+1, true
					break
				}
			}
			if end, ok := stringEnd(str, 0); end != wantEnd || ok != wantOK {
				t.Fatalf("stringEnd(%q) = %d, %v, want %d, %v", str, end, ok, wantEnd, wantOK)
			}
		}
		word := buf[:8]
		plain := true
		for _, c := range word {
			plain = plain && !stringSpecial[c] && c != 0x7f
		}
		if got := plainWord(binary.LittleEndian.Uint64(word)); got != plain {
			t.Fatalf("plainWord(%q) = %v, want %v", word, got, plain)
		}
		text := true
		for _, c := range word {
			text = text && !leanStop[c] && c != 0x7f
		}
		if got := textWord(binary.LittleEndian.Uint64(word)); got != text {
			t.Fatalf("textWord(%q) = %v, want %v", word, got, text)
		}
	}
}
