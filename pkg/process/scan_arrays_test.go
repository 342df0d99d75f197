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
	"strings"
	"testing"
)

// TestParametersPast counts the parameters array's elements only past the bound: at the bound
// and below nothing (also when commas in descriptions outnumber the bound, which must not
// pass for elements), one past it the count, and nothing for a member that is not an array (its
// reader says what is wrong).
func TestParametersPast(t *testing.T) {
	const bound = 100
	elements := func(n int, element string) string { return strings.TrimSuffix(strings.Repeat(element+",", n), ",") }
	commas := `{"name":"P","description":"` + strings.Repeat("a, ", 3*bound) + `"}`
	for _, c := range []struct {
		name, parameters string
		want             int
	}{
		{"at the bound", "[" + elements(bound, "{}") + "]", 0},
		{"one past", "[" + elements(bound+1, "{}") + "]", bound + 1},
		{"spaced", "[ " + elements(bound+1, " { } ") + " ]", bound + 1},
		{"nulls and objects", "[" + elements(bound/2+1, "null") + "," + elements(bound/2, `{"name":"a,b"}`) + "]", bound + 1},
		{"commas in descriptions", "[" + elements(3, commas) + "]", 0},
		{"not an array", `{"a":[` + elements(2*bound, "1") + "]}", 0},
	} {
		split, err := SplitTemplateJSON([]byte(`{"kind":"Template","parameters":` + c.parameters + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := split.ParametersPast(bound); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
