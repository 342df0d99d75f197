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
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestNumberFits(t *testing.T) {
	cases := map[string]bool{
		"0": true, "-1": true, "3.25": true, "99999999999999999999": true, "1e308": true,
		"1.7976931348623157e308": true, "-1.7976931348623157e308": true, "1e-400": true,
		strings.Repeat("9", 308): true, "0." + strings.Repeat("0", 500) + "1": true,
		"1e400": false, "-1e400": false, "1.8e308": false, "1E309": false,
		strings.Repeat("9", 309): false, "-" + strings.Repeat("9", 401): false,
	}
	for n, want := range cases {
		if got := NumberFits(n); got != want {
			t.Errorf("NumberFits(%.50s) = %v, want %v", n, got, want)
		}
		// The rule is Kubernetes' own: an int64, else a float64 that did not overflow.
		_, intErr := strconv.ParseInt(n, 10, 64)
		_, floatErr := strconv.ParseFloat(n, 64)
		if kube := intErr == nil || floatErr == nil; kube != want {
			t.Errorf("%.50s: the case disagrees with strconv: %v", n, kube)
		}
		// NumberErrors skips values in which its pre-check sees no number that may not fit.
		if raw := `{"a":[` + n + `]}`; !want && !mayHoldUnfitNumber([]byte(raw)) {
			t.Errorf("the pre-check passes %.50s", raw)
		}
	}
}

func TestNumberErrors(t *testing.T) {
	root := field.NewPath("objects").Index(2)
	cases := []struct {
		name string
		raw  string
		want []string // "path=value"
	}{
		{"none", `{"a":1,"b":[1.5,-2e10],"c":"1e400"}`, nil},
		{"member", `{"spec":{"replicas":1e400}}`, []string{"objects[2].spec.replicas=1e400"}},
		{"array item", `{"a":[0,1,{"b":[5,-1e999]}]}`, []string{"objects[2].a[2].b[1]=-1e999"}},
		{"odd key", `{"data":{"a.b c":1e400,"x\"y":2e400}}`, []string{"objects[2].data[a.b c]=1e400", `objects[2].data[x"y]=2e400`}},
		{"key after a nested value", `{"a":{"b":1},"c":1e400}`, []string{"objects[2].c=1e400"}},
		{"whitespace", "{ \"a\" : [ 1 ,\n 1e400 ] }", []string{"objects[2].a[1]=1e400"}},
		{"long integer", `{"n":` + strings.Repeat("7", 401) + `}`, []string{"objects[2].n=" + strings.Repeat("7", 40) + "... (401 characters)"}},
		{"top-level number", `1e400`, []string{"objects[2]=1e400"}},
		{"escaped quote before a number", `{"a":"\\","b":1e400}`, []string{"objects[2].b=1e400"}},
		{"unterminated string", `{"a":"1e400`, nil},
		{"broken JSON", `}}]],,1e400`, []string{"objects[2]=1e400"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range NumberErrors([]byte(tc.raw), root) {
				got = append(got, e.Field+"="+e.BadValue.(string))
				if e.Type != field.ErrorTypeInvalid || e.Detail != NumberRangeDetail {
					t.Errorf("unexpected error %v", e)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNumberErrorsAreBounded(t *testing.T) {
	raw := "[" + strings.Repeat("1e400,", 100000) + "0]"
	if errs := NumberErrors([]byte(raw), field.NewPath("objects")); len(errs) != maxNumberErrors {
		t.Fatalf("%d errors, want %d", len(errs), maxNumberErrors)
	}
}

func TestRawNumberErrorsAreBounded(t *testing.T) {
	objects := make([]runtime.RawExtension, 1000)
	for i := range objects {
		objects[i].Raw = []byte(`{"n":[1e400,1e400]}`)
	}
	errs := RawNumberErrors(RawList{"objects", objects}, RawList{"transformerOverrides", objects})
	if len(errs) < maxNumberErrors || len(errs) > 2*maxNumberErrors {
		t.Fatalf("%d errors, want about %d", len(errs), maxNumberErrors)
	}
	if errs[0].Field != "objects[0].n[0]" {
		t.Fatalf("first error at %s", errs[0].Field)
	}
}

// TestMayHoldUnfitNumber checks the pre-check against NumberErrors on values whose long
// runs of digits fall anywhere against its 300-byte stride.
func TestMayHoldUnfitNumber(t *testing.T) {
	for pad := 0; pad < 620; pad += 7 {
		for _, n := range []string{strings.Repeat("9", 309), strings.Repeat("9", 308), "1" + strings.Repeat("0", 310) + ".5", "2e400", "7"} {
			raw := []byte(`{"` + strings.Repeat("a", pad) + `":[` + n + `,` + strings.Repeat("1", pad%300) + `]}`)
			if len(numberErrors(raw, nil)) > 0 && !mayHoldUnfitNumber(raw) {
				t.Errorf("pad %d, %.20s...: the pre-check passes a value NumberErrors refuses", pad, n)
			}
		}
	}
}

// TestMayBeExponent checks where the pre-check looks for an exponent: every number of valid
// JSON with one, in every place a number can be, and none of the e's of words and escapes.
func TestMayBeExponent(t *testing.T) {
	numbers := []string{"1e400", "-1e400", "1.5E+309", "0.1e-999999", "-0.0e5", "12e0"}
	places := []string{`%s`, `[%s]`, `{"a":%s}`, `{"a": %s }`, "[1,\n\t%s]", `{"a":[true,%s]}`, `{"a":"x","b":%s}`}
	for _, n := range numbers {
		for _, place := range places {
			raw := []byte(fmt.Sprintf(place, n))
			if !json.Valid(raw) {
				t.Fatalf("%s is not valid JSON", raw)
			}
			if !mayHoldUnfitNumber(raw) {
				t.Errorf("the pre-check passes %s", raw)
			}
		}
	}
	for _, raw := range []string{
		`{"topic":"platform.events"}`, `{"script":"a \u003e b \u003e\u00262"}`, `{"image":"v2e5"}`,
		`{"a":"1.e5"}`, `{"sha":"abc2eff"}`, `{"n":[1,2,3],"text":"e"}`,
	} {
		if mayHoldUnfitNumber([]byte(raw)) {
			t.Errorf("the pre-check sends %s to the walk", raw)
		}
	}
}

// FuzzMayHoldUnfitNumber checks that the pre-check never passes a valid JSON value in which
// NumberErrors' walk finds a number Kubernetes cannot read.
func FuzzMayHoldUnfitNumber(f *testing.F) {
	for _, seed := range []string{`{"a":1e400}`, `[-2E+309,"x1e5"]`, `{"a":"\u003e5","b":[0.5e999]}`, `1e400`, `{"n":` + strings.Repeat("9", 400) + `}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) && len(numberErrors(raw, nil)) > 0 && !mayHoldUnfitNumber(raw) {
			t.Fatalf("the pre-check passes %q", raw)
		}
	})
}
