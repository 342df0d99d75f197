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
	"fmt"
	"reflect"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestDecodeParametersAgreesWithTheTypedDecoder checks that reading parameters with the lean
// reader, whose members are generated from the API's type, accepts and yields what the typed
// decoder of the API does.
func TestDecodeParametersAgreesWithTheTypedDecoder(t *testing.T) {
	for _, in := range append(append([]string{}, parameterSeeds...), numericSeeds...) {
		checkDecodersAgree(t, []byte(in))
	}
}

// parameterSeeds are parameters arrays of every kind of member, repeated, null, of the wrong
// type, escaped, unknown and broken.
var parameterSeeds = []string{
	`[]`, `null`, `[{"name":"A","value":"1","required":true,"type":"int","generate":"expression","from":"[a-z]{3}","displayName":"a","description":"b"}]`,
	`[{"name":"A","name":"B"}]`, `[{"name":null,"required":null}]`, `[null]`, `[{"n\u0061me":"escaped"}]`,
	`[{"name":"A","unknown":{"deep":[1,2,{"x":null}]}}]`, "[{\"name\":\"bad\xffutf8\"}]", `[{"name":"é\u00e9\n"}]`,
	`[{"name":1}]`, `[{"required":"true"}]`, `[{"name":["A"]}]`, `{}`, `[1]`, `[{"name":"A"},]`, `[{"Name":"case"}]`,
	`[{"name":"A","enum":["a",null,"b"],"pattern":"^a","minimum":"1","maximum":"2.5","minLength":0,"maxLength":9,"multiline":true,"secret":false}]`,
	`[{"enum":[]}]`, `[{"enum":null,"minimum":null,"maxLength":null,"secret":null}]`, `[{"enum":["a"],"enum":["b","c"]}]`,
	`[{"minimum":1}]`, `[{"minLength":1.5}]`, `[{"maxLength":"3"}]`, `[{"maxLength":99999999999999999999}]`, `[{"enum":[1]}]`,
	`[{"enum":"a"}]`, `[{"secret":"yes"}]`, `[{"minimum":"1","minimum":null}]`,
	`[{"name":"J","type":"json","items":{"type":"int","enum":["1"],"minimum":"0","maxLength":2}}]`,
	`[{"properties":{"port":{"type":"int","maximum":"65535"},"host":{"type":"string","pattern":"^a"}}}]`,
	`[{"items":{"type":"int"},"items":{"minimum":"1"}}]`, `[{"properties":{"a":{"type":"int"}},"properties":{"b":{"type":"bool"}}}]`,
	`[{"items":null,"properties":null}]`, `[{"items":[1]}]`, `[{"properties":{"a":1}}]`, `[{"items":{"type":"int","extra":1}}]`,
	// A repeated enum is decoded into the slice already there: a null element keeps the
	// first list's element (the token decoder this reader replaced made it "").
	`[{"enum":["a","b"],"enum":[null]}]`, `[{"enum":["a"],"enum":[null,null]}]`, `[{"enum":["a","b"],"enum":[]}]`,
	`[{"enum":["a"],"enum":null,"enum":[null]}]`, `[{"enum":[null,"a"]}]`, `[{"enum":["a",]}]`, `[{"enum":["a" "b"]}]`,
	`[null,{"name":"A"},null]`, `[{"unknown":1e400,"x":"\ud800","y":[{}],"name":"A"}]`, `[{"unknown":[}]`, `[{"unknown":01}]`,
	`[{"minimum":-},{"minimum":1.}]`, `[{"minimum":"1"x}]`, `[{"minimum":1 2}]`, `[{"minimum":`, `[{"items":{"type":"int"}`,
	`[{"minimum": 1 , "maxItems" :"2" }]`, `[{"maxItems":2,"maxItems":"x"}]`, `[{"items":{"minimum":1},"maxItems":3}]`,
}

// numericSeeds are parameters with bounds and lengths as JSON Schema's users write them
// (numbers), as Stencil's first templates did (strings), and as neither.
var numericSeeds = []string{
	`[{"name":"A","type":"int","minimum":1,"maximum":10}]`, `[{"minimum":"1","maximum":"10"}]`, `[{"minimum":0.1,"maximum":1e400}]`,
	`[{"minimum":-0,"maximum":1E+2}]`, `[{"maximum":99999999999999999999}]`, `[{"maximum":12345678901234567890123}]`,
	`[{"minimum":1e-400}]`, `[{"minimum":"\u0031"}]`, `[{"minimum":"a<b&c"}]`, `[{"minimum":true}]`, `[{"maximum":[1]}]`,
	`[{"minimum":{}}]`, `[{"minLength":"5","maxLength":5.0,"maxItems":5e0}]`, `[{"minLength":-1}]`, `[{"minLength":"-1"}]`,
	`[{"maxLength":1.5}]`, `[{"maxLength":"x"}]`, `[{"maxItems":1e999999}]`, `[{"maxItems":9223372036854775808}]`,
	`[{"maxItems":"9223372036854775807"}]`, `[{"minLength":false}]`,
	`[{"type":"json","items":{"type":"int","minimum":0,"maximum":"9","minLength":"1","maxLength":2}}]`,
	`[{"type":"json","items":{"minimum":true}}]`, `[{"properties":{"p":{"type":"int","maximum":65535,"minLength":"x"}}}]`,
}

// checkDecodersAgree checks that reading parameters token by token (decodeParameters, which
// tries the lean reader first) accepts and yields what the typed decoder of the API does, in
// both dialects.
func checkDecodersAgree(t *testing.T, in []byte) {
	t.Helper()
	checkDecodersAgreeIn[v1alpha1.Parameter](t, in)
	checkDecodersAgreeIn[openshift.Parameter](t, in)
}

func checkDecodersAgreeIn[P any](t *testing.T, in []byte) {
	t.Helper()
	var want []P
	wantErr := kjson.UnmarshalCaseSensitivePreserveInts(in, &want)
	got, err := decodeParameters[P](in)
	if (err == nil) != (wantErr == nil) {
		t.Errorf("%s: error %v, typed decoder's %v", in, err, wantErr)
		return
	}
	if err != nil {
		// An error about the template's field is worded about the template.
		if msg := err.Error(); strings.Contains(msg, "Go struct field") || strings.Contains(msg, "of type") {
			t.Errorf("%s: the error names Go types: %v", in, err)
		}
		return
	}
	if len(got) == 0 && len(want) == 0 {
		return // [] and null both mean no parameters
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %+v, typed decoder %+v", in, got, want)
	}
}

// TestLeanParametersHostile checks the lean reader where a hostile template would push it:
// nesting at the decoder's depth limit (10,000, counted from the parameters array, as the API's
// decoder counts it), members repeated many times, and long values. It must agree with the
// API's decoder on each, and finish in time linear in the input.
func TestLeanParametersHostile(t *testing.T) {
	nested := func(depth int) string { // an unknown member's value of the given nesting
		return strings.Repeat("[", depth) + strings.Repeat("]", depth)
	}
	for _, in := range []string{
		`[{"x":` + nested(9998) + `}]`, // 10,000 levels with the array and the parameter: taken
		`[{"x":` + nested(9999) + `}]`, // 10,001: refused
		`[{"items":{"enum":["a"],"x":` + nested(9997) + `}}]`,
		`[{"items":{"x":` + nested(9998) + `}}]`,
		`[{` + strings.Repeat(`"enum":["a",null],`, 20000) + `"name":"A"}]`,
		`[{` + strings.Repeat(`"items":{"type":"int"},`, 20000) + `"name":"A"}]`,
		`[{` + strings.Repeat(`"minimum":1e400,`, 20000) + `"name":"A"}]`,
		`[{"description":"` + strings.Repeat(`\u00e9`, 100000) + `","x":"` + strings.Repeat("a", 100000) + `"}]`,
	} {
		checkDecodersAgree(t, []byte(in))
		checkLeanOnce(t, []byte(in))
	}
	// The lean reader itself takes the deepest value the API's decoder takes.
	if _, ok := leanParameters([]byte(`[{"x":`+nested(9998)+`}]`), false); !ok {
		t.Errorf("the lean reader refuses a value at the depth limit")
	}
	if _, ok := leanParameters([]byte(`[{"x":`+nested(9999)+`}]`), false); ok {
		t.Errorf("the lean reader takes a value beyond the depth limit")
	}
}

// TestLeanParametersWarned checks that the strict lean reader reads parameters with members
// they do not have itself (not leaving them to the strict decoder), and words them as that
// decoder does, in its order, the first 100 of them.
func TestLeanParametersWarned(t *testing.T) {
	var many strings.Builder
	many.WriteString(`[`)
	for i := range 60 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"name":"P%d","requred":true,"Example":{"a":[1]}}`, i)
	}
	many.WriteString(`]`)
	for _, in := range []string{
		`[{"name":"A","requred":true},{"name":"B"},{"name":"C","example":"x","displayname":"c"}]`,
		`[null,{"typ\u006f":1,"name":"A"}]`,
		many.String(),
	} {
		checkWarned(t, in, stencilDialect)
		checkWarned(t, in, openShiftDialect)
	}
	// Ours has members OpenShift's does not have: a strict OpenShift reader words them.
	checkWarned(t, `[{"name":"A","type":"int","enum":["1"],"minimum":"x"}]`, openShiftDialect)
	// A member written twice is still the decoder's to word.
	if _, _, ok := leanParametersWarned([]byte(`[{"name":"A","x":1,"x":2}]`), stencilParameter); ok {
		t.Fatal("a repeated member was read by the lean reader")
	}
}

// checkWarned checks that the strict lean reader of d's dialect reads in, with words on
// members a parameter does not have, as the strict decoder of that dialect reads (and its
// conversion makes) and words it.
func checkWarned[W, P any](t *testing.T, in string, d leanDialect[W, P]) {
	t.Helper()
	params, warnings, ok := leanParametersWarned([]byte(in), d.member)
	if !ok {
		t.Fatalf("%.80s: left to the strict decoder", in)
	}
	var want struct {
		Parameters []W `json:"parameters"`
	}
	strictErrs, err := kjson.UnmarshalStrict([]byte(`{"parameters":`+in+`}`), &want)
	if err != nil {
		t.Fatal(err)
	}
	if converted := d.convert(want.Parameters); !reflect.DeepEqual(params, converted) {
		t.Fatalf("%.80s: read %+v, the decoder %+v", in, params, converted)
	}
	if len(warnings) != len(strictErrs) || len(warnings) == 0 {
		t.Fatalf("%.80s: %d words, the decoder %d", in, len(warnings), len(strictErrs))
	}
	for i := range warnings {
		if warnings[i].Error() != strictErrs[i].Error() {
			t.Fatalf("%.80s: word %d is %q, the decoder's %q", in, i, warnings[i], strictErrs[i])
		}
	}
}
