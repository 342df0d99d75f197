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
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestBoundFromJSON: a bound is a number or a string, kept as written; a number that
// Kubernetes' readers would not read back as itself is kept as a string holding it; anything
// else is an error worded about the template.
func TestBoundFromJSON(t *testing.T) {
	for _, tc := range []struct{ in, want, text, err string }{
		{in: `1`, want: `1`, text: "1"},
		{in: `0.1`, want: `0.1`, text: "0.1"},
		{in: `-2.50`, want: `-2.50`, text: "-2.50"},
		{in: `1E+2`, want: `1E+2`, text: "1E+2"},
		{in: `9223372036854775807`, want: `9223372036854775807`, text: "9223372036854775807"},
		{in: `1e400`, want: `"1e400"`, text: "1e400"},
		{in: `1e-400`, want: `"1e-400"`, text: "1e-400"},
		{in: `12345678901234567890123`, want: `"12345678901234567890123"`, text: "12345678901234567890123"},
		{in: `"10"`, want: `"10"`, text: "10"},
		{in: `"\u0031"`, want: `"1"`, text: "1"},
		{in: `"1Gi"`, want: `"1Gi"`, text: "1Gi"},
		{in: `true`, err: "must be a number or a string holding one"},
		{in: `[1]`, err: "must be a number or a string holding one"},
		{in: `{}`, err: "must be a number or a string holding one"},
		{in: `01`, err: "must be a number or a string holding one"},
	} {
		got, err := BoundFromJSON([]byte(tc.in))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %q, %v; want the error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want || got.Text() != tc.text {
			t.Errorf("%s: %s (text %q), %v; want %s (text %q)", tc.in, got, got.Text(), err, tc.want, tc.text)
		}
	}
}

// TestLengthFromJSON: a length is an integer in any JSON spelling, or a string holding one.
func TestLengthFromJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{in: `5`, want: 5}, {in: `"5"`, want: 5}, {in: `5.0`, want: 5}, {in: `5e0`, want: 5}, {in: `"50e-1"`, want: 5},
		{in: `-1`, want: -1}, {in: `9223372036854775807`, want: 9223372036854775807},
		{in: `9223372036854775808`, err: true}, {in: `1.5`, err: true}, {in: `"x"`, err: true}, {in: `true`, err: true},
		{in: `1e999999`, err: true}, {in: `""`, err: true}, {in: `null`, err: true},
	} {
		got, err := LengthFromJSON([]byte(tc.in))
		if (err != nil) != tc.err || !tc.err && got != tc.want {
			t.Errorf("%s: %d, %v; want %d (error: %v)", tc.in, got, err, tc.want, tc.err)
		}
		if err != nil && err.Error() != "must be an integer or a string holding one" {
			t.Errorf("%s: %v", tc.in, err)
		}
	}
}

// typeErrorsExample has the shapes JSONTypeErrors walks.
type typeErrorsExample struct {
	inlineMeta `json:",inline"`
	Name       string            `json:"name"`
	On         *bool             `json:"on,omitempty"`
	Count      int32             `json:"count"`
	Ratio      float64           `json:"ratio"`
	Data       []byte            `json:"data"`
	Labels     map[string]string `json:"labels"`
	Items      []typeErrorsItem  `json:"items"`
	Any        any               `json:"any"`
	Skipped    string            `json:"-"`
}

type inlineMeta struct {
	Kind string `json:"kind"`
}

type typeErrorsItem struct {
	Bound *boundReader `json:"bound"`
}

// boundReader reads itself, as the API's Bound does.
type boundReader struct{ b Bound }

func (r *boundReader) UnmarshalJSON(data []byte) (err error) {
	r.b, err = BoundFromJSON(data)
	return err
}

// TestJSONTypeErrors: every misfit at its path, worded about the template, none for what
// fits, null, or members the type does not have.
func TestJSONTypeErrors(t *testing.T) {
	in := `{"kind":1,"name":"a","on":"yes","count":2.5,"ratio":"x","data":3,"labels":{"b":"1","a":2},
		"items":[{"bound":1},{"bound":true},null,{"bound":null,"other":{}}],"any":[{}],"Skipped":1,"-":2,"NAME":3}`
	errs := JSONTypeErrors([]byte(in), reflect.TypeOf(typeErrorsExample{}), field.NewPath("spec"))
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`spec.count: Invalid value: 2.5: must be an integer`,
		`spec.data: Invalid value: 3: must be a string of base64`,
		`spec.items[1].bound: Invalid value: true: must be a number or a string holding one`,
		`spec.kind: Invalid value: 1: must be a string`,
		`spec.labels[a]: Invalid value: 2: must be a string`,
		`spec.on: Invalid value: "yes": must be true or false`,
		`spec.ratio: Invalid value: "x": must be a number`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if errs := JSONTypeErrors([]byte(`{"name":"a","items":[{"bound":"1"}],"any":7}`), reflect.TypeOf(typeErrorsExample{}), nil); len(errs) != 0 {
		t.Errorf("a fitting value: %v", errs)
	}
	if errs := JSONTypeErrors([]byte(`{"name":`), reflect.TypeOf(typeErrorsExample{}), nil); len(errs) != 0 {
		t.Errorf("invalid JSON is the decoder's to report: %v", errs)
	}
	long := `{"name":["` + strings.Repeat("x", 200) + `"]}`
	if errs := JSONTypeErrors([]byte(long), reflect.TypeOf(typeErrorsExample{}), nil); len(errs) != 1 || len(errs[0].Error()) > 120 {
		t.Errorf("a long value is cut short: %v", errs)
	}
}

// TestJSONTypeErrorsOfRepeatedMembers: a member written twice is read twice by the API's
// decoders, which refuse the type of either; each is reported, the value shown as written.
func TestJSONTypeErrorsOfRepeatedMembers(t *testing.T) {
	for in, want := range map[string]string{
		`{"name":1,"name":"a"}`:                `spec.name: Invalid value: 1: must be a string`,
		`{"name":"a","name":1}`:                `spec.name: Invalid value: 1: must be a string`,
		`{"labels":{"a":"1","a":2}}`:           `spec.labels[a]: Invalid value: 2: must be a string`,
		`{"labels":[],"labels":{}}`:            `spec.labels: Invalid value: []: must be an object`,
		`{"items":[{"bound":true,"bound":1}]}`: `spec.items[0].bound: Invalid value: true: must be a number or a string holding one`,
		`{"data":{"x":1,"x":2},"name":"a"}`:    `spec.data: Invalid value: {"x":1,"x":2}: must be a string of base64`,
	} {
		var typed typeErrorsExample
		if err := json.Unmarshal([]byte(in), &typed); err == nil {
			t.Errorf("%s: encoding/json reads it; the case means a body it refuses", in)
		}
		errs := JSONTypeErrors([]byte(in), reflect.TypeOf(typeErrorsExample{}), field.NewPath("spec"))
		if len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("%s: %v, want %s", in, errs, want)
		}
	}
	deep := strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1)
	if errs := JSONTypeErrors([]byte(`{"name":`+deep+`}`), reflect.TypeOf(typeErrorsExample{}), nil); len(errs) != 0 {
		t.Errorf("JSON deeper than the decoder reads is the decoder's to report: %v", errs)
	}
}
