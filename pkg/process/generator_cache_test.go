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
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestParseExpressionOnce checks that the cache gives what parsing gives, parses the same text
// once, keeps no refusal, and stops growing at its bound.
func TestParseExpressionOnce(t *testing.T) {
	for _, from := range []string{"[a-z0-9]{12}", "x[A-F]{3}y", strings.Repeat("a", maxParsedExpressionBytes+1)} {
		want, err := parseExpression(from)
		if err != nil {
			t.Fatal(err)
		}
		first, err := parseExpressionOnce(from)
		if err != nil || !reflect.DeepEqual(first, want) {
			t.Fatalf("%q: %+v, %v; want %+v", from, first, err, want)
		}
		second, _ := parseExpressionOnce(from)
		if cached := len(from) <= maxParsedExpressionBytes; (first == second) != cached {
			t.Fatalf("%q: the second parse is the first's: %v, want %v", from, first == second, cached)
		}
	}
	if _, err := parseExpressionOnce("[a-"); err == nil {
		t.Fatal("a bad expression parsed")
	}
	if _, ok := parsedExpressions.Load("[a-"); ok {
		t.Fatal("a refusal was kept")
	}
	for i := 0; i < 2*maxParsedExpressions; i++ {
		from := "p" + strconv.Itoa(i) + "[a-z]{4}"
		e, err := parseExpressionOnce(from)
		if want, _ := parseExpression(from); err != nil || !reflect.DeepEqual(e, want) {
			t.Fatalf("%q: %+v, %v", from, e, err)
		}
	}
	n := 0
	parsedExpressions.Range(func(any, any) bool { n++; return true })
	if n > maxParsedExpressions || int(parsedExpressionsIn.Load()) != n {
		t.Fatalf("the cache holds %d expressions (counted %d), bound %d", n, parsedExpressionsIn.Load(), maxParsedExpressions)
	}
}
