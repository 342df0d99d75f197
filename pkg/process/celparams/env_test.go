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

package celparams

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

func ptr[T any](v T) *T { return &v }

var testParams = []templates.Parameter{
	{Name: "MIN", Type: "int"},
	{Name: "MAX", Type: "int"},
	{Name: "RATIO", Type: "number"},
	{Name: "TLS", Type: "bool"},
	{Name: "NAME", MaxLength: ptr(int64(10))},
	{Name: "ZONES", Type: "json", Items: &templates.JSONValueSchema{Type: "string"}},
	{Name: "PORTS", Type: "json", Items: &templates.JSONValueSchema{Type: "int"}},
	{Name: "BOUNDED", Type: "json", Items: &templates.JSONValueSchema{Type: "int"}, MaxItems: ptr(int64(100))},
	{Name: "ENDPOINT", Type: "json", Properties: map[string]templates.JSONValueSchema{"port": {Type: "int"}, "weight": {Type: "number"}}},
	{Name: "ANY", Type: "json"},
	{Name: "in", Type: "string"},
}

// TestEval checks that params holds each type as CEL's own: ints, doubles, bools, lists and
// maps, and that empty non-string values are absent.
func TestEval(t *testing.T) {
	env, err := NewEnv(testParams)
	if err != nil {
		t.Fatal(err)
	}
	values := []string{"2", "5", "0.5", "true", "web", `["a","b","c"]`, `[80,443]`, `[1,2]`, `{"port":8080,"weight":1,"extra":[1]}`, `{"k":[1,2.5]}`, "reserved"}
	cases := []struct {
		expr string
		want bool
	}{
		{"params.MIN <= params.MAX", true},
		{"params.MIN + 3 == params.MAX", true},
		{"params.RATIO * 2.0 == 1.0", true},
		{"params.TLS", true},
		{"params.NAME.startsWith('w')", true},
		{"params.ZONES.size() == 3 && 'b' in params.ZONES", true},
		{"params.PORTS[0] == 80 && params.PORTS.size() == 2", true},
		{"params.ENDPOINT.port == 8080 && params.ENDPOINT.weight == 1.0", true},
		{"has(params.ENDPOINT.port)", true},
		{"params.ANY.k[0] == 1 && params.ANY.k[1] == 2.5", true},
		{"params.__in__ == 'reserved'", true},
		{"params.MAX < params.MIN", false},
		{"params.BOUNDED.all(p, params.BOUNDED.all(q, p + q > 0))", true},
	}
	for _, tc := range cases {
		prog, ferr := env.Compile(tc.expr, Bool, field.NewPath("rules").Index(0))
		if ferr != nil {
			t.Errorf("%s: %v", tc.expr, ferr)
			continue
		}
		out, err := prog.Eval(env.Values(values))
		if err != nil || out.Value() != tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.expr, out, err, tc.want)
		}
	}

	prog, _ := env.Compile("has(params.MIN) || has(params.TLS)", Bool, field.NewPath("r"))
	if out, err := prog.Eval(env.Values([]string{"", "", "", "", "", "", "", "", "", "", ""})); err != nil || out.Value() != false {
		t.Errorf("empty values must be absent: %v %v", out, err)
	}
	list, _ := env.Compile("params.ZONES", List, field.NewPath("f"))
	if out, err := list.Eval(env.Values(values)); err != nil || len(out.Value().([]any)) != 3 {
		t.Errorf("a list: %v %v", out, err)
	}
}

// TestCompileErrors checks each reason an expression is refused, at its path.
func TestCompileErrors(t *testing.T) {
	env, err := NewEnv(testParams)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		expr string
		want Result
		err  string
	}{
		{"", Bool, "Required value"},
		{"params.NOPE > 1", Bool, "compilation failed: ERROR: <input>:1:7: undefined field 'NOPE'"},
		{"params.MIN > 'a'", Bool, "compilation failed"},
		{"params.MIN", Bool, "must evaluate to a bool, not int"},
		{"params.MIN > 1", List, "must evaluate to a list, not bool"},
		{"params.ANY.all(x, params.ANY.all(y, params.ANY.all(z, x == y)))", Bool, "Forbidden: estimated cost"},
		{"params.ZONES.all(x, params.ZONES.all(y, x != y || x == y))", Bool, "Forbidden: estimated cost"},
		{"params.PORTS.all(p, p > 0 && p < 65536)", Bool, "Forbidden: estimated cost"},
	}
	for _, tc := range cases {
		_, ferr := env.Compile(tc.expr, tc.want, field.NewPath("rules").Index(3).Child("rule"))
		if ferr == nil || !strings.Contains(ferr.Error(), tc.err) || !strings.HasPrefix(ferr.Error(), "rules[3].rule") {
			t.Errorf("%q: got %v, want %q at rules[3].rule", tc.expr, ferr, tc.err)
		}
	}
	// A bounded list of bounded strings keeps the same shape of rule within the budget.
	bounded, _ := NewEnv([]templates.Parameter{{Name: "ZONES", Type: "json", Items: &templates.JSONValueSchema{Type: "string", MaxLength: ptr(int64(10))}}})
	if _, ferr := bounded.Compile("params.ZONES.all(x, x.size() < 9)", Bool, field.NewPath("r")); ferr != nil {
		t.Errorf("bounded: %v", ferr)
	}
}
