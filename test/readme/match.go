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

package readme

import (
	"regexp"
	"strings"
)

// age is a kubectl AGE cell: 5s, 2m10s, 3h, 4d5h, 10y.
var age = regexp.MustCompile(`^([0-9]+[smhdy]){1,2}$`)

// Match reports whether a command's output is what the README documents. The tolerances are
// those a reader applies without thinking, and no more:
//
//   - blank lines are left out on both sides, and trailing spaces;
//   - a run of spaces is one space, so that a table's column widths may change;
//   - a documented AGE (a cell such as 5s or 2m10s) matches any age;
//   - "..." inside a line stands for any text (a generated password, the rest of a long line);
//   - a line that is only "..." stands for any number of lines, none included.
//
// Every other line must be there, in order, and nothing else.
func Match(want []string, output string) bool {
	var got []string
	for _, l := range strings.Split(output, "\n") {
		if l = normalize(l); l != "" {
			got = append(got, l)
		}
	}
	var pattern []string
	for _, l := range want {
		if l = normalize(l); l != "" {
			pattern = append(pattern, l)
		}
	}
	return matchLines(pattern, got)
}

// normalize removes what Match tolerates from one line.
func normalize(l string) string {
	return strings.Join(strings.Fields(l), " ")
}

// matchLines matches lines against patterns, "..." lines spanning any number of lines.
func matchLines(pattern, got []string) bool {
	if len(pattern) == 0 {
		return len(got) == 0
	}
	if pattern[0] == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if matchLines(pattern[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(pattern[0], got[0]) && matchLines(pattern[1:], got[1:])
}

// matchLine matches one normalized line: word by word, so that an age matches any age, with
// "..." as a wildcard inside the words.
func matchLine(pattern, got string) bool {
	if !strings.Contains(pattern, "...") {
		p, g := strings.Fields(pattern), strings.Fields(got)
		if len(p) != len(g) {
			return false
		}
		for i := range p {
			if p[i] != g[i] && !(age.MatchString(p[i]) && age.MatchString(g[i])) {
				return false
			}
		}
		return true
	}
	parts := strings.Split(pattern, "...")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}
