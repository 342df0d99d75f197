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

package render

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestHoldsExpansionName checks the search for the expansion annotation's name against
// bytes.Contains: the name at every offset of short and long objects, cut short at either
// end, beside its rare byte alone and beside near misses.
func TestHoldsExpansionName(t *testing.T) {
	name := string(expansionName)
	near := []string{name[:len(name)-1], name[1:], "x", "xx" + name[:expansionRare+1], name[:expansionRare] + "y" + name[expansionRare+1:]}
	r := rand.New(rand.NewPCG(1, 2))
	filler := func(n int) string {
		const letters = `{}":,abcx. -/`
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	var cases []string
	for _, n := range []int{0, 1, 5, 40, 200} {
		for at := 0; at <= n; at++ {
			f := filler(n)
			cases = append(cases, f[:at]+name+f[at:], f[:at]+near[at%len(near)]+f[at:], f)
		}
	}
	cases = append(cases, "", name, name[:len(name)-1], "x"+name, name+"x", near[3]+name[expansionRare+1:])
	for _, c := range cases {
		if got, want := holdsExpansionName([]byte(c)), bytes.Contains([]byte(c), expansionName); got != want {
			t.Fatalf("%q: %v, bytes.Contains says %v", c, got, want)
		}
	}
}

// FuzzHoldsExpansionName checks the search against bytes.Contains on any bytes, with the name
// put in at a place the input chooses.
func FuzzHoldsExpansionName(f *testing.F) {
	f.Add([]byte("abc"), uint16(0))
	f.Add([]byte(`{"metadata":{"annotations":{"x":"y"}}}`), uint16(28))
	f.Fuzz(func(t *testing.T, b []byte, at uint16) {
		for _, in := range [][]byte{b, append(append(append([]byte{}, b[:int(at)%(len(b)+1)]...), expansionName...), b[int(at)%(len(b)+1):]...)} {
			if got, want := holdsExpansionName(in), bytes.Contains(in, expansionName); got != want {
				t.Fatalf("%q: %v, bytes.Contains says %v", in, got, want)
			}
		}
	})
}
