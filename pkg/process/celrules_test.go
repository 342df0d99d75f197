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

// ruleTemplate is a template with the parameters the rule cases use and the given rules.
func ruleTemplate(rules string) string {
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
"parameters":[{"name":"MIN","type":"int","value":"1","maximum":"100"},{"name":"MAX","type":"int","value":"3"},
 {"name":"TIER","value":"web","enum":["web","db"]},{"name":"ZONES","type":"json","value":"[\"a\",\"b\"]","items":{"type":"string","maxLength":8}},
 {"name":"TLS","type":"bool","value":"false"},{"name":"CERT"},{"name":"PORT","type":"int"},{"name":"PASSWORD","secret":true,"value":"hunter2"}],
"rules":` + rules + `,
"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"${MIN}${MAX}${TIER}${ZONES}${TLS}${CERT}${PORT}${PASSWORD}"}}]}`
}

// TestRulesRefusedAtCompile checks each reason a rule is refused, with its path, all at once.
func TestRulesRefusedAtCompile(t *testing.T) {
	cases := []struct {
		name  string
		rules string
		want  []string
	}{
		{"empty", `[{"rule":""}]`, []string{"rules[0].rule: Required value"}},
		{"syntax", `[{"rule":"params.MIN <"}]`, []string{`rules[0].rule: Invalid value: "params.MIN <": compilation failed: ERROR: <input>:1:13: Syntax error`}},
		{"undeclared parameter", `[{"rule":"params.NOPE == 1"}]`, []string{"rules[0].rule: Invalid value", "undefined field 'NOPE'"}},
		{"types that do not match", `[{"rule":"params.MIN == 'one'"}]`, []string{"rules[0].rule: Invalid value", "found no matching overload for '_==_' applied to '(int, string)'"}},
		{"not a bool", `[{"rule":"params.MIN + 1"}]`, []string{"rules[0].rule: Invalid value", "must evaluate to a bool, not int"}},
		{"too costly", `[{"rule":"params.CERT.matches('a') && params.ZONES.all(z, params.ZONES.all(y, params.ZONES.all(x, x + y + z != params.CERT)))"}]`,
			[]string{"rules[0].rule: Forbidden: estimated cost"}},
		{"fieldPath names no parameter", `[{"rule":"true","fieldPath":"NOPE"}]`, []string{`rules[0].fieldPath: Invalid value: "NOPE": must name a parameter of the template`}},
		{"every problem at once", `[{"rule":"params.MIN <= params.MAX"},{"rule":"params.MIN <"},{"rule":"1","fieldPath":"X"}]`,
			[]string{"rules[1].rule: Invalid value", "rules[2].fieldPath: Invalid value", "rules[2].rule: Invalid value"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := processCase(t, ruleTemplate(tc.rules), Request{})
			errorsContain(t, errs, tc.want...)
			if tc.name != "every problem at once" && len(errs) != 1 {
				t.Errorf("want one error, got %v", errs)
			}
		})
	}
}

// TestRulesAtProcessing checks rules against the request's values: a false rule is its message
// at its fieldPath (the parameter's path) or at the rule, a rule that cannot be evaluated is
// an error of its own unless a value's error explains it, and rules join the values' errors.
func TestRulesAtProcessing(t *testing.T) {
	given := func(kv ...string) Request {
		r := Request{Parameters: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			r.Parameters[kv[i]] = kv[i+1]
		}
		return r
	}
	cases := []struct {
		name    string
		rules   string
		req     Request
		wantErr []string
		count   int
	}{
		{name: "holds", rules: `[{"rule":"params.MIN <= params.MAX"}]`},
		{name: "holds for the caller's values", rules: `[{"rule":"params.MIN <= params.MAX"}]`, req: given("MIN", "7", "MAX", "9")},
		{name: "false at its fieldPath", rules: `[{"rule":"params.MIN <= params.MAX","message":"MIN must not exceed MAX","fieldPath":"MIN"}]`,
			req: given("MIN", "7"), wantErr: []string{`parameters[0]: Invalid value: "7": MIN must not exceed MAX`}, count: 1},
		{name: "false at the rule, default message", rules: `[{"rule":"true"},{"rule":"params.MIN <= params.MAX"}]`, req: given("MAX", "0"),
			wantErr: []string{`rules[1]: Invalid value: "params.MIN <= params.MAX": failed rule: params.MIN <= params.MAX`}, count: 1},
		{name: "json lists and bools", rules: `[{"rule":"!params.TLS || params.CERT != ''","message":"TLS needs CERT","fieldPath":"CERT"},{"rule":"params.ZONES.size() <= 3"}]`,
			req: given("TLS", "true", "ZONES", `["a","b","c","d"]`), wantErr: []string{"parameters[5]: Invalid value: \"\": TLS needs CERT", "rules[1]"}, count: 2},
		{name: "an absent value", rules: `[{"rule":"params.PORT > 0"}]`,
			wantErr: []string{`rules[0]: Invalid value: "params.PORT > 0": could not be evaluated: no such key: PORT`}, count: 1},
		{name: "an absent value tested with has", rules: `[{"rule":"!has(params.PORT) || params.PORT > 0"}]`},
		{name: "a secret stays out", rules: `[{"rule":"params.PASSWORD.size() > 8","fieldPath":"PASSWORD","message":"too short"}]`,
			wantErr: []string{"parameters[7]: Invalid value: too short"}, count: 1},
		{name: "with the values' errors, one list", rules: `[{"rule":"params.MIN <= params.MAX","fieldPath":"MAX","message":"MAX below MIN"}]`,
			req: given("MIN", "101", "TIER", "gold", "MAX", "2"),
			wantErr: []string{"parameters[0]: Invalid value: \"101\": parameter MIN must be at most 100", `parameters[2]: Invalid value: "gold": parameter TIER must be one of`,
				`parameters[1]: Invalid value: "2": MAX below MIN`}, count: 3},
		{name: "a rule a bad value breaks says nothing more", rules: `[{"rule":"params.PORT > 0"}]`, req: given("PORT", "eighty"),
			wantErr: []string{"parameter PORT must be an integer"}, count: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := processCase(t, ruleTemplate(tc.rules), tc.req)
			if tc.wantErr == nil {
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				return
			}
			errorsContain(t, errs, tc.wantErr...)
			if len(errs) != tc.count {
				t.Errorf("want %d errors, got %v", tc.count, errs)
			}
			if strings.Contains(errs.ToAggregate().Error(), "hunter2") {
				t.Errorf("a secret value in the errors: %v", errs)
			}
		})
	}
}

// TestSchemaErrorsWithRulesAtOnce is the case: a bad default, a bad regex and a rule
// that does not compile are refused together, each at its path.
func TestSchemaErrorsWithRulesAtOnce(t *testing.T) {
	tmpl, d, err := DecodeTemplate([]byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
"parameters":[{"name":"REPLICAS","type":"int","value":"20","maximum":"10"},{"name":"HOST","pattern":"[a-z"}],
"rules":[{"rule":"params.REPLICAS >"}],"objects":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Compile(tmpl, d)
	errorsContain(t, errs, "parameters[0].value", "parameters[1].pattern", "rules[0].rule")
	if len(errs) != 3 {
		t.Errorf("want 3 errors, got %v", errs)
	}
}
