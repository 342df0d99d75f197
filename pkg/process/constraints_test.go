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

// TestParameterConstraints checks values, the caller's, defaults and generated ones, against
// each constraint: every violation is one error at parameters[i] naming the parameter.
func TestParameterConstraints(t *testing.T) {
	given := func(kv ...string) Request {
		r := Request{Parameters: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			r.Parameters[kv[i]] = kv[i+1]
		}
		return r
	}
	cases := []struct {
		name    string
		params  string
		data    string
		req     Request
		want    string
		wantErr []string
	}{
		{name: "enum kept", params: `[{"name":"T","enum":["web","db"]}]`, data: `"t":"${T}"`, req: given("T", "db"), want: `"t":"db"`},
		{name: "enum broken", params: `[{"name":"T","enum":["web","db"]}]`, data: `"t":"${T}"`, req: given("T", "cache"),
			wantErr: []string{`parameters[0]: Invalid value: "cache": parameter T must be one of ["web" "db"]`}},
		{name: "int enum by value", params: `[{"name":"N","type":"int","enum":["1","3"]}]`, data: `"n":"${{N}}"`, req: given("N", "003"), want: `"n":3`},
		{name: "pattern anywhere", params: `[{"name":"H","pattern":"[0-9]"}]`, data: `"h":"${H}"`, req: given("H", "web1"), want: `"h":"web1"`},
		{name: "pattern anchored", params: `[{"name":"H","pattern":"^[a-z]+$"}]`, data: `"h":"${H}"`, req: given("H", "web1"),
			wantErr: []string{`parameters[0]: Invalid value: "web1": parameter H must match the pattern "^[a-z]+$"`}},
		{name: "int in range", params: `[{"name":"R","type":"int","minimum":"1","maximum":"10"}]`, data: `"r":"${{R}}"`, req: given("R", "10"), want: `"r":10`},
		{name: "int below minimum", params: `[{"name":"R","type":"int","minimum":"1","maximum":"10"}]`, data: `"r":"${{R}}"`, req: given("R", "0"),
			wantErr: []string{`parameters[0]: Invalid value: "0": parameter R must be at least 1`}},
		{name: "big int above maximum", params: `[{"name":"R","type":"int","maximum":"9223372036854775807"}]`, data: `"r":"${{R}}"`,
			req: given("R", "9223372036854775808"), wantErr: []string{"parameter R must be at most 9223372036854775807"}},
		{name: "number", params: `[{"name":"F","type":"number","minimum":"0.1","maximum":"1e3"}]`, data: `"f":"${{F}}"`, req: given("F", "2.5e2"), want: `"f":2.5e2`},
		{name: "number exact at the bound", params: `[{"name":"F","type":"number","minimum":"0.1"}]`, data: `"f":"${{F}}"`, req: given("F", "0.09999999999999999999"),
			wantErr: []string{"parameter F must be at least 0.1"}},
		{name: "number of the wrong shape", params: `[{"name":"F","type":"number"}]`, data: `"f":"${{F}}"`, req: given("F", "1."),
			wantErr: []string{"parameter F must be a JSON number"}},
		{name: "json", params: `[{"name":"J","type":"json"}]`, data: `"j":"${{J}}"`, req: given("J", `{"a":[1,2]}`), want: `"j":{"a":[1,2]}`},
		{name: "json broken", params: `[{"name":"J","type":"json"}]`, data: `"j":"${{J}}"`, req: given("J", `{"a":`),
			wantErr: []string{"parameter J must be a JSON value"}},
		{name: "json items", params: `[{"name":"Z","type":"json","items":{"type":"string","enum":["a","b","c"]}}]`, data: `"z":"${{Z}}"`,
			req: given("Z", `["a","c"]`), want: `"z":["a","c"]`},
		{name: "json items broken", params: `[{"name":"Z","type":"json","items":{"type":"int","maximum":"3"}}]`, data: `"z":"${{Z}}"`,
			req: given("Z", `[1,"2",4,1.5]`), wantErr: []string{"parameter Z element 1 must be of type int; element 2 must be at most 3; element 3 must be of type int"}},
		{name: "json items on an object", params: `[{"name":"Z","type":"json","items":{"type":"int"}}]`, data: `"z":"${{Z}}"`,
			req: given("Z", `{}`), wantErr: []string{"parameter Z must be a JSON array"}},
		{name: "json properties", params: `[{"name":"O","type":"json","properties":{"port":{"type":"int","maximum":"65535"},"host":{"type":"string","minLength":1}}}]`,
			data: `"o":"${{O}}"`, req: given("O", `{"port":70000,"host":"","other":true}`),
			wantErr: []string{`parameter O member "host" must be at least 1 characters long; member "port" must be at most 65535`}},
		{name: "json properties absent are free", params: `[{"name":"O","type":"json","properties":{"port":{"type":"int"}}}]`,
			data: `"o":"${{O}}"`, req: given("O", `{"host":"h"}`), want: `"o":{"host":"h"}`},
		{name: "lengths in characters", params: `[{"name":"S","minLength":2,"maxLength":3}]`, data: `"s":"${S}"`, req: given("S", "äöü"), want: `"s":"äöü"`},
		{name: "too long", params: `[{"name":"S","maxLength":3}]`, data: `"s":"${S}"`, req: given("S", "abcd"),
			wantErr: []string{`parameters[0]: Invalid value: "abcd": parameter S must be at most 3 characters long`}},
		{name: "too short", params: `[{"name":"S","minLength":3}]`, data: `"s":"${S}"`, req: given("S", "ab"),
			wantErr: []string{"parameter S must be at least 3 characters long"}},
		{name: "empty is unset", params: `[{"name":"S","minLength":3,"enum":["abc"]}]`, data: `"s":"${S}"`, req: given("S", ""), want: `"s":""`},
		{name: "generated value checked", params: `[{"name":"G","generate":"expression","from":"[a-z]{8}","maxLength":4}]`, data: `"g":"${G}"`,
			wantErr: []string{"parameters[0]: Invalid value", "parameter G must be at most 4 characters long"}},
		{name: "every reason of one value", params: `[{"name":"S","pattern":"^x","maxLength":2}]`, data: `"s":"${S}"`, req: given("S", "abc"),
			wantErr: []string{`parameter S must match the pattern "^x"; must be at most 2 characters long`}},
		{name: "secret kept out of the error", params: `[{"name":"P","secret":true,"minLength":8}]`, data: `"p":"${P}"`, req: given("P", "hunter2"),
			wantErr: []string{"parameters[0]: Invalid value: parameter P must be at least 8 characters long"}},
		{name: "every problem at once", data: `"a":"${R}${T}${S}"`,
			params:  `[{"name":"R","type":"int","maximum":"10"},{"name":"T","enum":["a","b"]},{"name":"S","maxLength":2},{"name":"Q","required":true}]`,
			req:     given("R", "11", "T", "c", "S", "long", "U", "1"),
			wantErr: []string{"parameters[U]", "parameters[0]", "parameters[1]", "parameters[2]", "parameters[3]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmpl := stencilTemplate(tc.params, "["+cm(tc.data)+"]")
			r, errs := processCase(t, tmpl, tc.req)
			if tc.wantErr != nil {
				errorsContain(t, errs, tc.wantErr...)
				if strings.Contains(errs.ToAggregate().Error(), "hunter2") {
					t.Errorf("the secret value is in the errors: %v", errs)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got, want := objectsOf(r), cm(tc.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestCheckValuesChecksConstraints checks the path without a plan, used when the template
// itself does not compile.
func TestCheckValuesChecksConstraints(t *testing.T) {
	tmpl, d, err := DecodeTemplate([]byte(stencilTemplate(`[{"name":"R","type":"int","minimum":"1"},{"name":"T","enum":["a"]}]`,
		`[{"kind":"Secret"}]`)))
	if err != nil {
		t.Fatal(err)
	}
	errs := CheckValues(tmpl, d, Request{Parameters: map[string]string{"R": "0", "T": "b"}})
	errorsContain(t, errs, "parameter R must be at least 1", `parameter T must be one of ["a"]`)
}

// TestConstraintSchemaErrors checks that Compile, which processedtemplates and the CLI's
// --local use, refuses a broken schema as the store does.
func TestConstraintSchemaErrors(t *testing.T) {
	tmpl, d, err := DecodeTemplate([]byte(stencilTemplate(
		`[{"name":"A","value":"x","enum":["y"]},{"name":"B","pattern":"("},{"name":"C","type":"int","minimum":"2","maximum":"1"},{"name":"D","type":"bool","maxLength":1}]`,
		`[]`)))
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Compile(tmpl, d)
	errorsContain(t, errs, "parameters[0].value", "parameters[1].pattern", "parameters[2].minimum", "parameters[3].maxLength")
}

// TestOpenShiftIgnoresConstraints checks that constraint members in an OpenShift template are
// unknown fields, dropped as OpenShift drops them.
func TestOpenShiftIgnoresConstraints(t *testing.T) {
	r, errs := processCase(t, openShiftTemplateJSON(`[{"name":"A","value":"toolong","maxLength":2,"pattern":"(","type":"int"}]`,
		"["+cm(`"a":"${A}"`)+"]"), Request{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got, want := objectsOf(r), cm(`"a":"toolong"`); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
