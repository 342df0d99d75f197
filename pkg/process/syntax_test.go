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
	"testing"
)

// cm wraps data members into a ConfigMap, the simplest object to substitute into.
func cm(data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{` + data + `}}`
}

// TestSyntax covers each rule of the syntax the package documents (doc.go, "Syntax") in the
// Stencil dialect.
func TestSyntax(t *testing.T) {
	params := `[{"name":"FOO","value":"BAR"},{"name":"N","value":"3"},{"name":"B","value":"true"},
		{"name":"OBJ","value":"{\"a\": 1}"},{"name":"NUL","value":"null"},{"name":"OCT","value":"010"},
		{"name":"YES","value":"yes"},{"name":"BIG","value":"99999999999999999999"},
		{"name":"REF","value":"${FOO}"},{"name":"K","value":"key"},{"name":"Q","value":"say \"hi\"\n"},
		{"name":"ARR","value":"[1, \"two\"]"}]`
	cases := []struct {
		name string
		data string
		want string
	}{
		{"brace text", `"a":"x-${FOO}-y"`, `"a":"x-BAR-y"`},
		{"paren text", `"a":"x-$(FOO)-y"`, `"a":"x-BAR-y"`},
		{"several references", `"a":"${FOO}$(FOO)${N}"`, `"a":"BARBAR3"`},
		{"brace typed number", `"a":"${{N}}"`, `"a":3`},
		{"paren typed number", `"a":"$((N))"`, `"a":3`},
		{"typed bool", `"a":"${{B}}"`, `"a":true`},
		{"typed object", `"a":"$((OBJ))"`, `"a":{"a":1}`},
		{"typed array", `"a":"${{ARR}}"`, `"a":[1,"two"]`},
		{"typed null removes the key", `"a":"${{NUL}}","b":"x"`, `"b":"x"`},
		{"typed null stays in an array", `"a":["$((NUL))","x"]`, `"a":[null,"x"]`},
		{"not JSON stays a string: 010", `"a":"${{OCT}}"`, `"a":"010"`},
		{"not JSON stays a string: yes", `"a":"$((YES))"`, `"a":"yes"`},
		{"not JSON stays a string: BAR", `"a":"$((FOO))"`, `"a":"BAR"`},
		{"proposal: $(FOO)", `"somefield":"$(FOO)"`, `"somefield":"BAR"`},
		{"proposal: $((FOO)) with text is text", `"somefield":"prefix_$((FOO))_suffix"`, `"somefield":"prefix_BAR_suffix"`},
		{"proposal: both kinds", `"somefield":"prefix_$((FOO))_$(FOO)_suffix"`, `"somefield":"prefix_BAR_BAR_suffix"`},
		{"typed brace with text is text", `"a":"n=${{N}}"`, `"a":"n=3"`},
		{"two typed references are text", `"a":"${{N}}${{N}}"`, `"a":"33"`},
		{"escape brace", `"a":"$${FOO}"`, `"a":"${FOO}"`},
		{"escape typed brace", `"a":"$${{FOO}}"`, `"a":"${{FOO}}"`},
		{"escape paren", `"a":"$$(FOO)"`, `"a":"$(FOO)"`},
		{"escape typed paren", `"a":"$$((FOO))"`, `"a":"$((FOO))"`},
		{"escape then reference", `"a":"$${FOO}=${FOO}"`, `"a":"${FOO}=BAR"`},
		{"$$ before a non-reference stays", `"a":"$$(HOME) $$ a$$b"`, `"a":"$$(HOME) $$ a$$b"`},
		{"lone dollars stay", `"a":"$ ${ $( ${} $() ${{}} $x"`, `"a":"$ ${ $( ${} $() ${{}} $x"`},
		{"no re-scan", `"a":"${REF}-${FOO}"`, `"a":"${FOO}-BAR"`},
		{"no re-scan typed", `"a":"${{REF}}"`, `"a":"${FOO}"`},
		{"big integer typed", `"a":"${{BIG}}"`, `"a":99999999999999999999`},
		{"big integer literal", `"a":123456789012345678901234567890`, `"a":123456789012345678901234567890`},
		{"key substituted", `"${K}":"v","$(K)2":"w"`, `"key":"v","key2":"w"`},
		{"typed key is text", `"${{N}}":"v"`, `"3":"v"`},
		{"kubernetes variable left alone", `"a":"$(HOME) $(PATH)"`, `"a":"$(HOME) $(PATH)"`},
		{"value is escaped", `"a":"${Q}"`, `"a":"say \"hi\"\n"`},
		{"escaped dollar in JSON", `"a":"\u0024{FOO}"`, `"a":"BAR"`},
		{"nested", `"a":{"b":[{"c":"${FOO}"},"x",{"d":"$((N))"}]}`, `"a":{"b":[{"c":"BAR"},"x",{"d":3}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, errs := processCase(t, stencilTemplate(params, "["+cm(tc.data)+"]"), Request{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got, want := objectsOf(r), cm(tc.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestSyntaxOpenShift covers the same rows in the OpenShift dialect, which knows only ${} and
// ${{}} and has no escape.
func TestSyntaxOpenShift(t *testing.T) {
	params := `[{"name":"FOO","value":"BAR"},{"name":"N","value":"3"},{"name":"NUL","value":"null"},
		{"name":"REF","value":"${FOO}"},{"name":"BIG","value":"99999999999999999999"}]`
	cases := []struct {
		name, data, want string
		warnings         []string
	}{
		{"brace text", `"a":"x-${FOO}-y"`, `"a":"x-BAR-y"`, nil},
		{"typed", `"a":"${{N}}"`, `"a":3`, nil},
		{"paren forms are not references", `"a":"$(FOO) $((N))"`, `"a":"$(FOO) $((N))"`, nil},
		{"no escape", `"a":"$${FOO}"`, `"a":"$BAR"`, nil},
		{"typed with text is left as written", `"a":"n=${{N}}"`, `"a":"n=${{N}}"`,
			[]string{"objects[0].data.a: ${{N}} is not substituted"}},
		{"undeclared stays with a warning", `"a":"${X}","b":"${{X}}","c":"${X}"`, `"a":"${X}","b":"${{X}}","c":"${X}"`,
			[]string{"objects[0].data.a: ${X} refers to the undeclared parameter X and is kept as written (and 1 more places)",
				"objects[0].data.b: ${{X}} refers to the undeclared parameter X"}},
		{"null in an array does not panic", `"a":["${{NUL}}"]`, `"a":[null]`, nil},
		{"null removes the key", `"a":"${{NUL}}"`, ``, nil},
		{"typed key does not panic", `"${{N}}":"v"`, `"3":"v"`, nil},
		{"no re-scan", `"a":"${REF}-${FOO}"`, `"a":"${FOO}-BAR"`, nil},
		{"big integer", `"a":"${{BIG}}"`, `"a":99999999999999999999`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, errs := processCase(t, openShiftTemplateJSON(params, "["+cm(tc.data)+"]"), Request{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got, want := objectsOf(r), cm(tc.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if len(r.Warnings) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %q", r.Warnings, tc.warnings)
			}
			for i, w := range tc.warnings {
				if len(r.Warnings[i]) < len(w) || r.Warnings[i][:len(w)] != w {
					t.Errorf("warning %q, want prefix %q", r.Warnings[i], w)
				}
			}
		})
	}
}
