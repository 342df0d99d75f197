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

package validation

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SortByField orders errs by field path, in place, and returns it. Errors gathered by several
// checkers then read as one report of the object from top to bottom: a field comes before the
// fields inside it and before longer names (transformers[0] before transformersFrom), indexes
// compare as numbers (items[2] before items[10]), and errors at the same field keep the order
// in which they were found.
//
// Beyond MaxReportedErrors, the rest are replaced by one error that counts them.
func SortByField(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int { return comparePaths(a.Field, b.Field) })
	if len(errs) > MaxReportedErrors {
		omitted := len(errs) - MaxReportedErrors
		errs = append(errs[:MaxReportedErrors], &field.Error{
			Type:     field.ErrorTypeTooMany,
			Field:    errs[MaxReportedErrors].Field,
			BadValue: omitted,
			Detail:   fmt.Sprintf("%d more problems, from this field on, are not listed", omitted),
		})
	}
	return errs
}

// MaxReportedErrors bounds the problems one answer lists. apimachinery builds the message of a
// 422 by concatenating its causes one at a time, which takes time quadratic in their number:
// a request naming 100,000 undeclared parameters (2 MB) kept the server busy past its request
// timeout. Nobody reads past the first thousand.
const MaxReportedErrors = 1000

// comparePaths compares field paths as text, except that runs of digits compare by value and
// the separators of path segments sort before every other character.
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			if c := compareNumbers(a[:da], b[:db]); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if ca, cb := sortKey(a[0]), sortKey(b[0]); ca != cb {
			return ca - cb
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func sortKey(c byte) int {
	switch c {
	case '.':
		return -3
	case '[':
		return -2
	case ']':
		return -1
	}
	return int(c)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// compareNumbers compares two runs of digits by value, without overflow on long runs; equal
// values with different leading zeros compare as text so that the order stays total.
func compareNumbers(a, b string) int {
	ta, tb := strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(ta) != len(tb) {
		return len(ta) - len(tb)
	}
	if c := strings.Compare(ta, tb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
