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

package jsonbytes

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendQuotedHTML compares with encoding/json's writing of a string: every byte alone and
// inside text, multi-byte and invalid UTF-8, the line and paragraph separators.
func TestAppendQuotedHTML(t *testing.T) {
	inputs := []string{"", "plain text", "<a href=\"x\">&amp;</a>", "caf\u00e9 \u2028\u2029 \U0001F600", "\xff\xfe", "a\xe2\x80", "tab\tnew\nline\\"}
	for c := 0; c < 256; c++ {
		inputs = append(inputs, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)})+"cd")
		// at each place of the words read eight bytes at a time
		for at := 0; at < 20; at++ {
			in := []byte("0123456789abcdefghij")
			in[at] = byte(c)
			inputs = append(inputs, string(in))
		}
	}
	// Two bytes to escape in one word, and after one another (the word loop passes to the
	// first of a word, then reads on from it).
	for _, c := range []byte("\"\\<>&\n\t\x01\x7f\xe2") {
		for _, d := range []byte("\"<\n\x7f\xc3\xa9") {
			for at := 0; at < 10; at++ {
				in := []byte("0123456789abcdefghij")
				in[at], in[at+1+at%3] = c, d
				inputs = append(inputs, string(in))
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab \"\\<>&\n\t\x7f\xe2\x80\xa8\xc3\xa9\xff")
	for range 2000 {
		in := make([]byte, rng.IntN(40))
		for i := range in {
			in[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(in))
	}
	for _, in := range inputs {
		want, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendQuotedHTML([]byte("x"), in); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("%q: %s, encoding/json %s", in, got[1:], want)
		}
		if got := AppendQuotedHTML(nil, []byte(in)); !bytes.Equal(got, want) {
			t.Errorf("%q as bytes: %s, encoding/json %s", in, got, want)
		}
	}
}

// TestAppendEscapedHTMLLine checks each line's escape and end against a search for the line
// feed (the carriage return of a CRLF before it) and AppendEscapedHTML of the line, on lines of
// every length around the eight-byte steps with a byte of each value at each place, and on
// random texts of several lines.
func TestAppendEscapedHTMLLine(t *testing.T) {
	var inputs [][]byte
	for c := 0; c < 256; c++ {
		for at := 0; at < 20; at++ {
			for _, end := range []string{"", "\n", "\r\n", "\rx\n", "\n\n"} {
				in := []byte("0123456789abcdefghij")
				in[at] = byte(c)
				inputs = append(inputs, append(in[:min(at+1+at%7, len(in))], end...))
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("ab \"\\<>&\n\r\t\x7f\xe2\x80\xa8\xc3\xa9\xff")
	for range 5000 {
		in := make([]byte, rng.IntN(60))
		for i := range in {
			in[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, in)
	}
	for _, in := range inputs {
		for at := 0; at <= len(in); {
			end := len(in)
			if j := bytes.IndexByte(in[at:], '\n'); j >= 0 {
				end = at + j
				if end > at && in[end-1] == '\r' {
					end--
				}
			}
			want := AppendEscapedHTML([]byte("x"), in[at:end])
			got, n := AppendEscapedHTMLLine([]byte("x"), in[at:])
			if at+n != end || !bytes.Equal(got, want) {
				t.Fatalf("%q from %d: line of %d bytes, %q; want %d, %q", in, at, n, got, end-at, want)
			}
			if end == len(in) {
				break
			}
			at = end + 1
			if in[end] == '\r' {
				at++
			}
		}
	}
}
