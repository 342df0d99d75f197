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

package cli

import (
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	cases := []struct {
		name   string
		a, b   string
		output string
	}{
		{"one line changed in the middle", "a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nX\ne\nf\ng",
			"      b\n      c\n    - d\n    + X\n      e\n      f\n"},
		{"added at the end", "a\nb", "a\nb\nc", "      a\n      b\n    + c\n"},
		{"two changes far apart", "1\n2\n3\n4\n5\n6\n7\n8\n9", "X\n2\n3\n4\n5\n6\n7\n8\nY",
			"    - 1\n    + X\n      2\n      3\n    ...\n      7\n      8\n    - 9\n    + Y\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := lineDiff(strings.Split(tc.a, "\n"), strings.Split(tc.b, "\n"))
			if got != tc.output {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.output)
			}
		})
	}
}
