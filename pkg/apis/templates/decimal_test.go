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

package templates

import (
	"math/big"
	"math/rand"
	"strconv"
	"testing"
)

// TestDecimalComparesAsBigRat: on numbers big.Rat reads quickly, Decimal orders them as it
// does, in every spelling JSON and the int type allow.
func TestDecimalComparesAsBigRat(t *testing.T) {
	texts := []string{"0", "-0", "0.0", "0e5", "1", "-1", "01", "007", "10", "1e1", "100e-1", "0.1", "1e-1", "0.10", "-0.1",
		"123.45", "12345e-2", "9223372036854775807", "9223372036854775808", "1E+2", "1e400", "-1e400", "1e-400", "0.000012"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		texts = append(texts, strconv.FormatFloat((r.Float64()-0.5)*float64(r.Intn(1e6)), 'g', -1, 64),
			strconv.FormatInt(r.Int63n(2000)-1000, 10)+"e"+strconv.Itoa(r.Intn(40)-20))
	}
	for _, a := range texts {
		da, ok := ParseBound(a)
		ra, _ := new(big.Rat).SetString(a)
		if !ok || ra == nil {
			t.Fatalf("%s does not parse", a)
		}
		for _, b := range texts {
			db, _ := ParseBound(b)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := da.Cmp(db), ra.Cmp(rb); got != want {
				t.Fatalf("%s vs %s: %d, big.Rat says %d", a, b, got, want)
			}
		}
	}
	for _, bad := range []string{"", "x", "1.", ".5", "1e", "--1", "1Gi"} {
		if _, ok := ParseBound(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestDecimalHugeExponents: what big.Rat takes tens of milliseconds for (a million-digit
// power of ten), or refuses, Decimal orders from the text.
func TestDecimalHugeExponents(t *testing.T) {
	order := []string{"-1e99999999999999999999999", "-1e999999", "-1e400", "0", "1e-999999", "1e400", "2e400", "1e999999", "1e99999999999999999999999"}
	for i := range order {
		for j := range order {
			a, _ := ParseBound(order[i])
			b, _ := ParseBound(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Cmp(b); got != want {
				t.Errorf("%s vs %s: %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

// BenchmarkParseBoundHugeExponent measures reading and comparing 1e999999, which took big.Rat
// about 50 ms; a template of 200 such bounds held a request past its deadline.
func BenchmarkParseBoundHugeExponent(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		x, _ := ParseBound("1e999999")
		y, _ := ParseBound("-1e-999999")
		_ = x.Cmp(y)
	}
}
