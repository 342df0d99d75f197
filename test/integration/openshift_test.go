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
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/process"
)

const openshiftTemplates = "/apis/template.openshift.io/v1/namespaces/default/templates"

// rawCall sends one request to the server and returns its status and body.
func rawCall(t *testing.T, rc rest.Interface, verb, path, contentType, accept string, body []byte) (int, []byte) {
	t.Helper()
	path, query, _ := strings.Cut(path, "?")
	req := rc.Verb(verb).AbsPath(path).SetHeader("Content-Type", contentType)
	if k, v, ok := strings.Cut(query, "="); ok {
		req = req.Param(k, v)
	}
	if accept != "" {
		req = req.SetHeader("Accept", accept)
	}
	if body != nil {
		req = req.Body(body)
	}
	result := req.Do(context.Background())
	var status int
	result.StatusCode(&status)
	raw, _ := result.Raw()
	return status, raw
}

// TestOpenShiftTemplatesGroup serves template.openshift.io/v1 over our Templates' storage.
func TestOpenShiftTemplatesGroup(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	rc := s.client(t).Discovery().RESTClient()
	data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", "mysql-persistent.json"))
	if err != nil {
		t.Fatal(err)
	}

	if status, body := rawCall(t, rc, "POST", openshiftTemplates, "application/json", "", data); status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	// The same object through our group, in our form, of OpenShift's dialect.
	status, body := rawCall(t, rc, "GET", "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates/mysql-persistent", "", "", nil)
	var ours map[string]any
	if err := json.Unmarshal(body, &ours); status != http.StatusOK || err != nil {
		t.Fatalf("get through templates.stencil.dev: %d %s", status, body)
	}
	if ours["dialect"] != "OpenShift" || ours["objectLabels"] == nil || ours["labels"] != nil {
		t.Errorf("want dialect OpenShift and objectLabels: %s", body)
	}
	// Back through OpenShift's group: the template as it was written.
	status, body = rawCall(t, rc, "GET", openshiftTemplates+"/mysql-persistent", "", "", nil)
	var got, want map[string]any
	if err := json.Unmarshal(body, &got); status != http.StatusOK || err != nil {
		t.Fatalf("get: %d %s", status, body)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"apiVersion", "kind", "objects", "parameters", "labels", "message"} {
		if !reflect.DeepEqual(got[field], want[field]) {
			t.Errorf("%s differs after a round trip through storage:\n%v\nwant\n%v", field, got[field], want[field])
		}
	}
	// oc get templates' columns.
	status, body = rawCall(t, rc, "GET", openshiftTemplates, "", "application/json;as=Table;v=v1;g=meta.k8s.io", nil)
	var table metav1.Table
	if err := json.Unmarshal(body, &table); status != http.StatusOK || err != nil || len(table.Rows) != 1 {
		t.Fatalf("table: %d %s", status, body)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "Name,Description,Parameters,Objects" || table.Rows[0].Cells[2] != "9 (3 generated)" {
		t.Errorf("columns %v, row %v", names, table.Rows[0].Cells)
	}

	// processedtemplates answers the Template processed, as OpenShift's does; its objects are
	// what stencil process --local makes with the same values.
	values := map[string]string{"MYSQL_USER": "u", "MYSQL_PASSWORD": "p", "MYSQL_ROOT_PASSWORD": "r", "MYSQL_DATABASE": "d"}
	filled := fillValues(t, body2template(t, data), values)
	status, body = rawCall(t, rc, "POST", "/apis/template.openshift.io/v1/namespaces/default/processedtemplates", "application/json", "", filled)
	if status != http.StatusCreated {
		t.Fatalf("processedtemplates: %d %s", status, body)
	}
	var processed struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Objects    []json.RawMessage `json:"objects"`
		Parameters []struct{ Name, Value string }
		Labels     map[string]string `json:"labels"`
		Message    string            `json:"message"`
	}
	if err := json.Unmarshal(body, &processed); err != nil {
		t.Fatal(err)
	}
	if processed.APIVersion != "template.openshift.io/v1" || processed.Kind != "Template" || len(processed.Objects) != 4 ||
		!strings.Contains(processed.Message, "Username: u") || processed.Labels["template"] != "mysql-persistent-template" {
		t.Errorf("answer: %s", body)
	}
	local := localObjects(t, data, values)
	for i := range local {
		if !sameJSONValue(t, processed.Objects[i], local[i]) {
			t.Errorf("objects[%d] differs from stencil process --local's:\n%s\n%s", i, processed.Objects[i], local[i])
		}
	}

	// Errors as OpenShift clients read them: 422, kind Template of template.openshift.io, causes.
	required := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"r"},"parameters":[{"name":"X","required":true}],"objects":[]}`
	status, body = rawCall(t, rc, "POST", "/apis/template.openshift.io/v1/namespaces/default/processedtemplates", "application/json", "", []byte(required))
	var st metav1.Status
	if err := json.Unmarshal(body, &st); status != http.StatusUnprocessableEntity || err != nil || st.Details == nil ||
		st.Details.Group != "template.openshift.io" || st.Details.Kind != "Template" || len(st.Details.Causes) == 0 {
		t.Errorf("want a 422 with causes: %d %s", status, body)
	}

	// Server-side apply through OpenShift's group, then read through ours.
	apply := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"applied"},"labels":{"a":"b"},"parameters":[{"name":"P","value":"1"},{"name":"P","value":"2"}],"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"p":"${P}"}}]}`
	status, body = rawCall(t, rc, "PATCH", openshiftTemplates+"/applied?fieldManager=test", string(types.ApplyPatchType), "", []byte(apply))
	if status != http.StatusCreated {
		t.Fatalf("apply: %d %s", status, body)
	}
	status, body = rawCall(t, rc, "GET", "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates/applied", "", "", nil)
	if status != http.StatusOK || !strings.Contains(string(body), `"dialect":"OpenShift"`) {
		t.Errorf("applied template through our group: %d %s", status, body)
	}

	// Discovery lists both resources; OpenAPI v3 describes the group.
	resources, err := s.client(t).Discovery().ServerResourcesForGroupVersion("template.openshift.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, r := range resources.APIResources {
		listed = append(listed, r.Name)
		// OpenShift's discovery as OpenShift has it: its clients break the tie between the
		// two resources of kind Template; ours has a kind of its own (TestDiscoveryAndOpenAPI).
		if r.Name == "processedtemplates" && r.Kind != "Template" {
			t.Errorf("OpenShift's processedtemplates reports kind %s, want Template", r.Kind)
		}
	}
	if strings.Join(listed, ",") != "processedtemplates,templateinstances,templateinstances/status,templates" {
		t.Errorf("resources %v", listed)
	}
	// The server started, so the operation IDs of both groups' kinds are unique.
	if status, body = rawCall(t, rc, "GET", "/openapi/v3/apis/template.openshift.io/v1", "", "", nil); status != http.StatusOK ||
		!strings.Contains(string(body), `"com.github.openshift.api.template.v1.Template"`) ||
		!strings.Contains(string(body), `"com.github.openshift.api.template.v1.TemplateInstance"`) {
		t.Errorf("openapi v3: %d", status)
	}
}

// TestOpenShiftTemplatesGroupOff: without the flag the group is not served.
func TestOpenShiftTemplatesGroupOff(t *testing.T) {
	if _, err := clientFor(t).Discovery().ServerResourcesForGroupVersion("template.openshift.io/v1"); err == nil {
		t.Error("template.openshift.io/v1 is served without --openshift-templates")
	}
}

func body2template(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// fillValues writes values into the first declaration of each name, as oc process does.
func fillValues(t *testing.T, doc map[string]any, values map[string]string) []byte {
	t.Helper()
	set := map[string]bool{}
	for _, p := range doc["parameters"].([]any) {
		param := p.(map[string]any)
		name := param["name"].(string)
		if v, ok := values[name]; ok && !set[name] {
			param["value"], set[name] = v, true
			delete(param, "generate")
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// localObjects processes data as stencil process --local does.
func localObjects(t *testing.T, data []byte, values map[string]string) []json.RawMessage {
	t.Helper()
	tmpl, d, _, err := process.DecodeTemplateFile(data)
	if err != nil {
		t.Fatal(err)
	}
	plan, errs := process.Compile(tmpl, d)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r, errs := plan.Execute(process.Request{Parameters: values})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return r.Objects
}

func sameJSONValue(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
