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
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSortByField(t *testing.T) {
	cases := []struct {
		name string
		in   []string // field paths, in the order found
		want []string
	}{
		{name: "empty"},
		{name: "by text", in: []string{"transformers", "message", "parameters", "metadata.name"}, want: []string{"message", "metadata.name", "parameters", "transformers"}},
		{name: "parent before child", in: []string{"spec.remove[0]", "spec.remove", "spec"}, want: []string{"spec", "spec.remove", "spec.remove[0]"}},
		{name: "indexes by value", in: []string{"objects[10].kind", "objects[2].kind", "objects[1].kind"}, want: []string{"objects[1].kind", "objects[2].kind", "objects[10].kind"}},
		{name: "nested indexes", in: []string{"a[1].b[10]", "a[1].b[9]", "a[0].b[11]"}, want: []string{"a[0].b[11]", "a[1].b[9]", "a[1].b[10]"}},
		{name: "long numbers", in: []string{"a[123456789012345678901234567890]", "a[99]"}, want: []string{"a[99]", "a[123456789012345678901234567890]"}},
		{name: "leading zeros keep a total order", in: []string{"k[007]", "k[7]", "k[07]"}, want: []string{"k[007]", "k[07]", "k[7]"}},
		{name: "segments before longer names", in: []string{"transformersFrom[0].name", "transformers[0].kind", "transformers.x", "a-b", "a.b"}, want: []string{"a.b", "a-b", "transformers.x", "transformers[0].kind", "transformersFrom[0].name"}},
		{name: "keys", in: []string{"data[b]", "data[a2]", "data[a10]"}, want: []string{"data[a2]", "data[a10]", "data[b]"}},
		{name: "key before a longer key", in: []string{"data[a-b]", "data[a]"}, want: []string{"data[a]", "data[a-b]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var errs field.ErrorList
			for _, f := range tc.in {
				errs = append(errs, field.Invalid(field.NewPath(f), nil, ""))
			}
			var got []string
			for _, e := range SortByField(errs) {
				got = append(got, e.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSortByFieldIsStable checks that errors at one field keep the order they were found in:
// the first reason given stays first.
func TestSortByFieldIsStable(t *testing.T) {
	errs := field.ErrorList{
		field.Invalid(field.NewPath("b"), nil, "first"),
		field.Required(field.NewPath("a"), ""),
		field.Invalid(field.NewPath("b"), nil, "second"),
		field.Invalid(field.NewPath("b"), nil, "third"),
	}
	var got []string
	for _, e := range SortByField(errs) {
		got = append(got, e.Field+" "+e.Detail)
	}
	want := []string{"a ", "b first", "b second", "b third"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSortByFieldBoundsTheReport(t *testing.T) {
	var errs field.ErrorList
	for i := 100_000; i > 0; i-- {
		errs = append(errs, field.Invalid(field.NewPath("parameters").Key(fmt.Sprintf("P%06d", i)), "x", "not declared"))
	}
	got := SortByField(errs)
	if len(got) != MaxReportedErrors+1 {
		t.Fatalf("%d errors, want %d", len(got), MaxReportedErrors+1)
	}
	if got[0].Field != "parameters[P000001]" || got[MaxReportedErrors-1].Field != "parameters[P001000]" {
		t.Fatalf("not the first problems in field order: %s ... %s", got[0].Field, got[MaxReportedErrors-1].Field)
	}
	last := got[MaxReportedErrors]
	if last.Type != field.ErrorTypeTooMany || last.Field != "parameters[P001001]" || last.BadValue != 99_000 {
		t.Fatalf("last error %v, want the count of the rest", last)
	}
	if exact := SortByField(errs[:MaxReportedErrors]); len(exact) != MaxReportedErrors {
		t.Fatalf("a report of exactly the limit was changed to %d errors", len(exact))
	}
}
