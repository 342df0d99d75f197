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

// TestParameterRules covers value resolution, required parameters, types and unknown values.
func TestParameterRules(t *testing.T) {
	cases := []struct {
		name    string
		params  string
		data    string
		req     Request
		want    string
		wantErr []string
	}{
		{name: "caller beats default", params: `[{"name":"A","value":"d"}]`, data: `"a":"${A}"`,
			req: Request{Parameters: map[string]string{"A": "c"}}, want: `"a":"c"`},
		{name: "default used", params: `[{"name":"A","value":"d"}]`, data: `"a":"${A}"`, want: `"a":"d"`},
		{name: "caller may empty a default", params: `[{"name":"A","value":"d"}]`, data: `"a":"${A}"`,
			req: Request{Parameters: map[string]string{"A": ""}}, want: `"a":""`},
		{name: "required and empty", params: `[{"name":"A"},{"name":"B","required":true},{"name":"C","required":true}]`,
			data:    `"a":"${A}${B}${C}"`,
			wantErr: []string{"parameters[1]: Required value: parameter B is required", "parameters[2]: Required value: parameter C is required"}},
		{name: "required given", params: `[{"name":"B","required":true}]`, data: `"a":"${B}"`,
			req: Request{Parameters: map[string]string{"B": "x"}}, want: `"a":"x"`},
		{name: "unknown caller parameters", params: `[{"name":"A"}]`, data: `"a":"${A}"`,
			req:     Request{Parameters: map[string]string{"Z": "1", "Y": "2"}},
			wantErr: []string{"parameters[Y]: Invalid value", "parameters[Z]: Invalid value", "declares no such parameter"}},
		{name: "unknown caller parameters ignored", params: `[{"name":"A"}]`, data: `"a":"${A}"`,
			req: Request{Parameters: map[string]string{"Z": "1"}, IgnoreUnknownParameters: true}, want: `"a":""`},
		{name: "int", params: `[{"name":"N","type":"int","value":"1"}]`, data: `"n":"${{N}}","s":"${N}"`,
			req: Request{Parameters: map[string]string{"N": "-42"}}, want: `"n":-42,"s":"-42"`},
		{name: "int keeps precision", params: `[{"name":"N","type":"int"}]`, data: `"n":"$((N))"`,
			req: Request{Parameters: map[string]string{"N": "123456789012345678901234567890"}}, want: `"n":123456789012345678901234567890`},
		{name: "int leading zeros are dropped", params: `[{"name":"N","type":"int"}]`, data: `"n":"${{N}}"`,
			req: Request{Parameters: map[string]string{"N": "007"}}, want: `"n":7`},
		{name: "int rejected", params: `[{"name":"N","type":"int"}]`, data: `"n":"${{N}}"`,
			req: Request{Parameters: map[string]string{"N": "3.5"}}, wantErr: []string{"parameters[0]: Invalid value: \"3.5\": parameter N must be an integer"}},
		{name: "bool", params: `[{"name":"B","type":"bool"}]`, data: `"b":"${{B}}"`,
			req: Request{Parameters: map[string]string{"B": "false"}}, want: `"b":false`},
		{name: "bool rejected", params: `[{"name":"B","type":"bool"}]`, data: `"b":"${{B}}"`,
			req: Request{Parameters: map[string]string{"B": "yes"}}, wantErr: []string{"parameters[0]", "must be true or false"}},
		{name: "base64", params: `[{"name":"S","type":"base64"}]`, data: `"s":"${S}"`,
			req: Request{Parameters: map[string]string{"S": "aGk="}}, want: `"s":"aGk="`},
		{name: "base64 rejected without echoing the secret", params: `[{"name":"S","type":"base64"}]`, data: `"s":"${S}"`,
			req: Request{Parameters: map[string]string{"S": "not base64!"}}, wantErr: []string{"parameters[0]: Invalid value", "must be base64"}},
		{name: "every error at once", params: `[{"name":"N","type":"int"},{"name":"R","required":true}]`, data: `"n":"${N}${R}"`,
			req:     Request{Parameters: map[string]string{"N": "x", "U": "1"}},
			wantErr: []string{"parameters[U]", "parameters[0]", "parameters[1]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, errs := processCase(t, stencilTemplate(tc.params, "["+cm(tc.data)+"]"), tc.req)
			if tc.wantErr != nil {
				errorsContain(t, errs, tc.wantErr...)
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

// TestTemplateErrors checks that Compile reports every problem of a template at once, with
// field paths.
func TestTemplateErrors(t *testing.T) {
	template := stencilTemplate(`[
		{"name":"A"},{"name":"A"},{"name":"9X"},{"name":""},
		{"name":"G","generate":"expression","from":"[Z-A]{3}"},
		{"name":"H","generate":"bogus"},{"name":"I","generate":"expression"},
		{"name":"T","type":"float"},{"name":"V","type":"int","value":"x"}]`, `[
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${X}"},"data":{"a":"${{Y}}","b":"$((Z))","c":"$(W)"}},
		{"kind":"ConfigMap"},
		{"apiVersion":"v1","kind":3},
		[1,2],
		{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c",
			"command":["run","$(A)"],"args":["$(A)"],
			"env":[{"name":"A","value":"$(A)"},{"name":"B","value":"$(A)"}]}]}}]`)
	tmpl, d, err := DecodeTemplate([]byte(template))
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Compile(tmpl, d)
	errorsContain(t, errs,
		`parameters[1].name: Duplicate value: "A"`,
		`parameters[2].name: Invalid value: "9X"`,
		`parameters[3].name: Required value`,
		`parameters[4].from: Invalid value: "[Z-A]{3}"`,
		`parameters[5].generate: Unsupported value: "bogus"`,
		`parameters[6].from: Required value`,
		`parameters[7].type: Unsupported value: "float"`,
		`parameters[8].value: Invalid value: "x"`,
		`objects[0].metadata.name: Invalid value: "${X}": X is not a declared parameter`,
		`objects[0].data.a: Invalid value: "${{Y}}"`,
		`objects[0].data.b: Invalid value: "$((Z))"`,
		`objects[1].apiVersion: Required value`,
		`objects[2].kind: Invalid value: "3": must be a string`,
		`objects[3]: Invalid value: "": must be a JSON object`,
		`objects[4].spec.containers[0].command[1]: Invalid value: "$(A)": A is both a template parameter and an env var`,
		`objects[4].spec.containers[0].args[0]: Invalid value: "$(A)"`,
		`objects[4].spec.containers[0].env[1].value: Invalid value: "$(A)"`,
	)
	if len(errs) != 17 {
		t.Errorf("got %d errors, want 17 (env[0] may use $(A) for the parameter, $(W) is Kubernetes'):\n%v", len(errs), errs.ToAggregate())
	}
}

// TestNamespaces checks that hardcoded namespaces are stripped and parameterised ones kept.
func TestNamespaces(t *testing.T) {
	objects := `[
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"hard"}},
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"${NS}"}},
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"${{NS}}"}},
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"$$(NS)","name":"d"}},
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"e"},"data":{"namespace":"kept"}}]`
	want := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b","namespace":"mine"}}
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"mine"}}
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"}}
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"e"},"data":{"namespace":"kept"}}`
	r, errs := processCase(t, stencilTemplate(`[{"name":"NS","value":"mine"}]`, objects), Request{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := objectsOf(r); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestMessageAndTransformers checks substitution outside the objects.
func TestMessageAndTransformers(t *testing.T) {
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},
		"message":"user ${U} $(U) $((U)) ${{U}} $${U} $(HOME)",
		"parameters":[{"name":"U","value":"bob"},{"name":"N","value":"2"}],
		"objects":[],
		"transformers":[{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replicas":[{"name":"${U}","count":"${{N}}"}]}]}`
	r, errs := processCase(t, template, Request{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if want := "user bob bob bob bob ${U} $(HOME)"; r.Message != want {
		t.Errorf("message %q, want %q", r.Message, want)
	}
	if got, want := string(r.Transformers[0]), `{"apiVersion":"builtin","kind":"ReplicaCountTransformer","replicas":[{"name":"bob","count":2}]}`; got != want {
		t.Errorf("transformer %s, want %s", got, want)
	}
	if got := string(ListBytes(r.Objects)); got != `{"apiVersion":"v1","kind":"List","items":[]}` {
		t.Errorf("empty list %s", got)
	}
}

// TestDuplicateKeysAfterSubstitution checks that substituted keys cannot collide silently.
func TestDuplicateKeysAfterSubstitution(t *testing.T) {
	_, errs := processCase(t, stencilTemplate(`[{"name":"K","value":"a"}]`, "["+cm(`"a":"1","${K}":"2"`)+"]"), Request{})
	errorsContain(t, errs, `objects[0].data: Duplicate value: "a"`)
}
