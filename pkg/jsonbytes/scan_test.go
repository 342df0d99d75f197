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
	"math/rand/v2"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // the offset after the first value
	}{
		{`"a\"b",1`, 6},
		{`"a\\",1`, 5},
		{`{"k":["}",{"x":"]"}]},1`, 21},
		{`-12.5e3,1`, 7},
		{`true]`, 4},
		{`null`, 4},
	} {
		if got := SkipValue([]byte(tc.in), 0); got != tc.want {
			t.Errorf("SkipValue(%s) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestStringContentAsUnquote compares StringContent with jsontext's unquote on strings of
// every escape, text between them and invalid UTF-8.
func TestStringContentAsUnquote(t *testing.T) {
	pieces := []string{`\n`, `\"`, `\\`, `\/`, `\t`, `\r`, `\b`, `\f`, `\u0024`, `\u00e9`, `\ud83d\ude00`, "a", "text ", "é", "\xff", "$",
		`\u003c`, `\u0026`, `\u2028`, `\uFFFD`, `\u0000`, `\ud800`, `\udc00x`, `\u00zz`, `\u12`, `\u`, `\uABCD`, `\\u0026`}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		raw := `"`
		for k := rng.IntN(8); k > 0; k-- {
			raw += pieces[rng.IntN(len(pieces))]
		}
		raw += `"`
		want, err := jsontext.AppendUnquote(nil, []byte(raw))
		if err != nil {
			want = []byte(raw[1 : len(raw)-1])
		}
		if got := StringContent([]byte(raw)); string(got) != string(want) {
			t.Fatalf("StringContent(%s) = %q, want %q", raw, got, want)
		}
		// Appended after what dst holds, which stays as it was, with room to spare or none
		// (the fallback to the general unquote writes over what the fast loop appended).
		for _, dst := range [][]byte{[]byte("kept"), append(make([]byte, 0, 64), "kept"...)} {
			got := AppendStringContent(dst, []byte(raw))
			if string(got) != "kept"+string(want) || string(dst) != "kept" {
				t.Fatalf("AppendStringContent(%q, %s) = %q, want %q", dst, raw, got, "kept"+string(want))
			}
			if len(got)-len(dst) > len(raw)-2 {
				t.Fatalf("AppendStringContent(%s) appended %d bytes, more than raw's content", raw, len(got)-len(dst))
			}
		}
	}
}

func TestStringContent(t *testing.T) {
	for in, want := range map[string]string{`"plain"`: "plain", `"a\nb\u0024"`: "a\nb$", `""`: ""} {
		if got := string(StringContent([]byte(in))); got != want {
			t.Errorf("StringContent(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendQuotedRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" backslash \\", "\n\r\t\b\f\x00\x1f", "é ✓", "bad \xff utf-8"} {
		quoted := AppendQuoted(nil, s)
		compact, err := Compact(quoted)
		if err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", s, quoted, err)
		}
		want := s
		if s == "bad \xff utf-8" {
			want = "bad \ufffd utf-8"
		}
		if got := string(StringContent(compact)); got != want {
			t.Errorf("%q: read back %q", s, got)
		}
	}
}

func TestMayContainDollar(t *testing.T) {
	for in, want := range map[string]bool{`"${X}"`: true, `"\u0024{X}"`: true, `"{X}"`: false} {
		if got := MayContainDollar([]byte(in)); got != want {
			t.Errorf("MayContainDollar(%s) = %v", in, got)
		}
	}
}
