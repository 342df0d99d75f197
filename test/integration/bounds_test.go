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

package integration

import (
	"net/http"
	"strings"
	"testing"
)

// boundsTemplate has bounds and lengths in every form: numbers as JSON Schema's users write
// them, strings as Stencil's first templates did, a number beyond float64 and one of more
// digits than it keeps, and integers in other spellings.
const boundsTemplate = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"bounds"},
  "parameters":[
    {"name":"A","type":"int","value":"3","minimum":1,"maximum":"10"},
    {"name":"B","type":"number","value":"0.5","minimum":0.1,"maximum":1e400},
    {"name":"S","value":"abc","minLength":"2","maxLength":5.0},
    {"name":"J","type":"json","value":"[1]","items":{"type":"int","minimum":0,"maximum":12345678901234567890123},"maxItems":"3"},
    {"name":"P","type":"json","value":"{}","properties":{"port":{"type":"int","maximum":65535,"minLength":null}}}],
  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"${A}","b":"${B}","s":"${S}","j":"${J}","p":"${P}"}}]}`

// TestBoundsAsWritten is issue 25's "typed parameters as people write them": minimum: 1 was a
// 400 (json: cannot unmarshal number into Go struct field Parameter.parameters.minimum of type
// string) on 3731d16. Numbers and strings are taken for every numeric keyword, read back as
// written (a number Kubernetes' readers would not keep exactly, as a string holding it), and
// compared exactly; a YAML body too.
func TestBoundsAsWritten(t *testing.T) {
	resp := shared.mustDo(t, "POST", apiPath("bounds", "templates"), ctJSON, []byte(boundsTemplate))
	if resp.status != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.status, resp.body)
	}
	got := shared.mustDo(t, "GET", apiPath("bounds", "templates/bounds"), "", nil)
	for _, want := range []string{`"minimum":1,"maximum":"10"`, `"minimum":0.1,"maximum":"1e400"`, `"minLength":2,"maxLength":5`,
		`"minimum":0,"maximum":"12345678901234567890123"`, `"maxItems":3`, `"maximum":65535`} {
		if !strings.Contains(string(got.body), want) {
			t.Errorf("read back without %s: %s", want, got.body)
		}
	}
	for _, tc := range []struct {
		params, refused string
	}{
		{`{"A":"10","B":"1","S":"abcde","J":"[12345678901234567890123]","P":"{\"port\":65535}"}`, ""},
		{`{"A":"11"}`, "must be at most 10"},
		{`{"A":"0"}`, "must be at least 1"},
		{`{"B":"0.09999999999999999999"}`, "must be at least 0.1"},
		{`{"S":"a"}`, "must be at least 2 characters long"},
		{`{"S":"abcdef"}`, "must be at most 5 characters long"},
		{`{"J":"[12345678901234567890124]"}`, "must be at most 12345678901234567890123"},
		{`{"J":"[1,2,3,4]"}`, "at most 3"},
		{`{"P":"{\"port\":65536}"}`, "must be at most 65535"},
	} {
		resp := shared.mustDo(t, "POST", apiPath("bounds", "templates/bounds/processed"), ctJSON, []byte(`{"parameters":`+tc.params+`}`))
		switch {
		case tc.refused == "" && resp.status != http.StatusCreated:
			t.Errorf("%s: %d %s", tc.params, resp.status, resp.body)
		case tc.refused != "" && (resp.status != http.StatusUnprocessableEntity || !strings.Contains(string(resp.body), tc.refused)):
			t.Errorf("%s: %d %s, want 422 saying %q", tc.params, resp.status, resp.body, tc.refused)
		}
	}

	yamlBody := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: from-yaml}\n" +
		"parameters:\n- {name: COUNT, type: int, value: '5', minimum: 1, maximum: 10, maxLength: null}\n" +
		"objects: [{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {n: '${COUNT}'}}]\n"
	if resp := shared.mustDo(t, "POST", apiPath("bounds", "templates"), ctYAML, []byte(yamlBody)); resp.status != http.StatusCreated {
		t.Fatalf("create from YAML: %d %s", resp.status, resp.body)
	}
	if resp := shared.mustDo(t, "POST", apiPath("bounds", "templates/from-yaml/processed"), ctJSON, []byte(`{"parameters":{"COUNT":"11"}}`)); resp.status != http.StatusUnprocessableEntity {
		t.Errorf("the YAML template's bound: %d %s", resp.status, resp.body)
	}
}

// TestBoundsHugeExponents is the hostile side: a bound or a value such as 1e999999 made big.Rat
// build a million-digit number, about 50 ms each; on 3731d16 a template of 200 parameters with
// two such bounds each held its processing past the request's deadline. Each is now compared
// from its text.
func TestBoundsHugeExponents(t *testing.T) {
	var params []string
	for i := 0; i < 200; i++ {
		params = append(params, `{"name":"P`+strings.Repeat("x", i%3)+string(rune('A'+i%26))+strings.Repeat("0", i/26)+`","type":"number","value":"1e-999999","minimum":"-1e999999","maximum":"1e999999"}`)
	}
	body := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"huge"},"parameters":[` +
		strings.Join(params, ",") + `],"objects":[]}`
	resp := shared.mustDo(t, "POST", apiPath("bounds", "processedtemplates"), ctJSON, []byte(body))
	if resp.status != http.StatusCreated {
		t.Fatalf("status %d: %.600s", resp.status, resp.body)
	}
	over := strings.Replace(body, `"value":"1e-999999"`, `"value":"2e999999"`, 1)
	resp = shared.mustDo(t, "POST", apiPath("bounds", "processedtemplates"), ctJSON, []byte(over))
	if resp.status != http.StatusUnprocessableEntity || !strings.Contains(string(resp.body), "must be at most 1e999999") {
		t.Fatalf("a value above its huge bound: %d %.600s", resp.status, resp.body)
	}
}

// TestTypeErrorsWordedAboutTheTemplate: a body whose JSON types do not fit is a 400 that names
// each misfit at its field path, worded about the template, through every way a Template,
// TemplateParameters or TemplateInstance reaches the server, in both groups. On 3731d16 the
// message was the decoder's: "json: cannot unmarshal ... into Go struct field ... of type ...".
func TestTypeErrorsWordedAboutTheTemplate(t *testing.T) {
	if resp := shared.mustDo(t, "POST", apiPath("worded", "templates"), ctJSON, []byte(
		`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"stored"},"parameters":[{"name":"A"}],"objects":[]}`)); resp.status != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.status, resp.body)
	}
	bad := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"stored","labels":{"a":1}},` +
		`"parameters":[{"name":"A","required":"yes","maximum":true,"minLength":1.5},{"name":"B","items":{"minimum":[1]}}],"objects":[]}`
	badYAML := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: stored}\nparameters:\n- {name: A, required: 'yes', maximum: true}\n"
	want := []string{`metadata.labels[a]: Invalid value: 1: must be a string`, `parameters[0].maximum: Invalid value: true: must be a number or a string holding one`,
		`parameters[0].minLength: Invalid value: 1.5: must be an integer or a string holding one`, `parameters[0].required: Invalid value: "yes": must be true or false`,
		`parameters[1].items.minimum: Invalid value: [1]: must be a number or a string holding one`}
	for _, tc := range []struct {
		name, method, path, contentType, body string
		want                                  []string
	}{
		{"create", "POST", "templates", ctJSON, bad, want},
		{"create YAML", "POST", "templates", ctYAML, badYAML, []string{want[1], want[3]}},
		{"update", "PUT", "templates/stored", ctJSON, bad, want},
		{"merge patch", "PATCH", "templates/stored", ctMergePatch, `{"parameters":[{"name":"A","maximum":false}]}`,
			[]string{`parameters[0].maximum: Invalid value: false: must be a number or a string holding one`}},
		{"process a template", "POST", "processedtemplates", ctJSON, bad, want},
		{"process a stored template", "POST", "templates/stored/processed", ctJSON, `{"parameters":{"A":1},"labels":[]}`,
			[]string{`labels: Invalid value: []: must be an object`, `parameters[A]: Invalid value: 1: must be a string`}},
		{"create an instance", "POST", "templateinstances", ctJSON,
			`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"TemplateInstance","metadata":{"name":"i"},"spec":{"templateRef":{"name":5},"parameters":{"A":3}}}`,
			[]string{`spec.parameters[A]: Invalid value: 3: must be a string`, `spec.templateRef.name: Invalid value: 5: must be a string`}},
	} {
		resp := shared.mustDo(t, tc.method, apiPath("worded", tc.path), tc.contentType, []byte(tc.body))
		checkWorded(t, tc.name, resp, tc.want)
	}

	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	openshift := "/apis/template.openshift.io/v1/namespaces/worded/"
	annotated := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"os","annotations":` +
		`{"templates.stencil.dev/stencil-fields":"{\"parameters\":[{\"name\":\"A\",\"maximum\":true,\"maxItems\":\"x\"}]}"}},"parameters":[{"name":"A"}],"objects":[]}`
	for _, tc := range []struct {
		name, path, body string
		want             []string
	}{
		{"OpenShift template", "templates", `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"os"},"parameters":[{"name":"A","required":"yes"}],"objects":[]}`,
			[]string{`parameters[0].required: Invalid value: "yes": must be true or false`}},
		{"OpenShift template's Stencil fields", "templates", annotated, []string{
			`metadata.annotations[templates.stencil.dev/stencil-fields].parameters[0].maxItems: Invalid value: "x": must be an integer or a string holding one`,
			`metadata.annotations[templates.stencil.dev/stencil-fields].parameters[0].maximum: Invalid value: true: must be a number or a string holding one`}},
		{"OpenShift instance's Stencil fields", "templateinstances", `{"apiVersion":"template.openshift.io/v1","kind":"TemplateInstance",` +
			`"metadata":{"name":"i","annotations":{"templates.stencil.dev/stencil-fields":"{\"parameters\":{\"A\":1}}"}},"spec":{"template":{"metadata":{"name":"t"}}}}`,
			[]string{`metadata.annotations[templates.stencil.dev/stencil-fields].parameters[A]: Invalid value: 1: must be a string`}},
		{"OpenShift processing", "processedtemplates", annotated, []string{
			`metadata.annotations[templates.stencil.dev/stencil-fields].parameters[0].maximum: Invalid value: true: must be a number or a string holding one`}},
	} {
		checkWorded(t, tc.name, s.mustDo(t, "POST", openshift+tc.path, ctJSON, []byte(tc.body)), tc.want)
	}
	// Numbers in the Stencil fields of OpenShift's form are taken as in ours.
	good := strings.Replace(annotated, `\"maximum\":true,\"maxItems\":\"x\"`, `\"type\":\"int\",\"maximum\":10`, 1)
	if resp := s.mustDo(t, "POST", openshift+"templates", ctJSON, []byte(good)); resp.status != http.StatusCreated {
		t.Fatalf("numbers in the Stencil fields: %d %s", resp.status, resp.body)
	}
	if resp := s.mustDo(t, "GET", openshift+"templates/os", "", nil); !strings.Contains(string(resp.body), `\"maximum\":10`) {
		t.Errorf("the Stencil fields read back: %s", resp.body)
	}
}

// checkWorded checks a 400 (or, from the patch handler, which reports a patch that does not
// decode as an invalid patch, a 422) whose message holds each of want and no Go type.
func checkWorded(t *testing.T, name string, resp rawResponse, want []string) {
	t.Helper()
	st, ok := resp.apiStatus()
	if resp.status != http.StatusBadRequest && resp.status != http.StatusUnprocessableEntity || !ok {
		t.Errorf("%s: %d %s, want 400", name, resp.status, resp.body)
		return
	}
	for _, w := range want {
		if !strings.Contains(st.Message, w) {
			t.Errorf("%s: %q, without %q", name, st.Message, w)
		}
	}
	for _, goWords := range []string{"Go struct field", "of type", "cannot unmarshal", "json:"} {
		if strings.Contains(st.Message, goWords) {
			t.Errorf("%s: %q names Go types (%q)", name, st.Message, goWords)
		}
	}
}
