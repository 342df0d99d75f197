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
	"fmt"
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

// TestSkipContainerWords checks skipContainer's word steps against a byte at a time: the
// offset it stops at and its error, on containers built from the bytes it must tell apart
// (brackets, quotes, escapes, and the letters that share a bracket's bits), cut anywhere.
func TestSkipContainerWords(t *testing.T) {
	alphabet := []byte(" \n\"\\{}[]:,aY_y\x7f0\"\"")
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 64)
	for n := 0; n < 300000; n++ {
		buf[0] = "{["[rng.IntN(2)]
		for i := 1; i < len(buf); i++ {
			buf[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) == 0 {
				buf[i] = ' '
			}
		}
		src := buf[:1+rng.IntN(len(buf))]
		depth := maxDepth - 2 + rng.IntN(3) // near the bound, now and then
		if rng.IntN(4) > 0 {
			depth = 0
		}
		s := scanner{b: src}
		err := s.skipContainer(depth)
		wantAt, wantErr := skipContainerBytes(src, depth)
		if s.i != wantAt || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("skipContainer(%q, %d) = %d, %v; want %d, %v", src, depth, s.i, err, wantAt, wantErr)
		}
	}
}

// skipContainerBytes is skipContainer a byte at a time.
func skipContainerBytes(b []byte, depth int) (int, error) {
	open := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; ; i++ {
				if i >= len(b) {
					return len(b), fmt.Errorf("offset %d: unterminated string", len(b))
				}
				if b[i] == '\\' {
					i++
				} else if b[i] == '"' {
					break
				}
			}
		case '{', '[':
			if open++; depth+open > maxDepth {
				return i, fmt.Errorf("offset %d: nested deeper than %d levels", i, maxDepth)
			}
		case '}', ']':
			if open--; open == 0 {
				return i + 1, nil
			}
		}
	}
	return len(b), fmt.Errorf("offset %d: unexpected end of input", len(b))
}
