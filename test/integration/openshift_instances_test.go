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
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const (
	openshiftInstances = "/apis/template.openshift.io/v1/namespaces/default/templateinstances"
	ourInstances       = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templateinstances"
)

// openshiftInstance is an OpenShift client's TemplateInstance: an inline template, a Secret of
// values, and a requester the server must not believe.
const openshiftInstance = `{"apiVersion":"template.openshift.io/v1","kind":"TemplateInstance","metadata":{"name":"cm"},
"spec":{"secret":{"name":"values"},"requester":{"username":"forged","groups":["system:masters"]},
"template":{"metadata":{"name":"small"},"parameters":[{"name":"NAME","required":true}],
"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"}}]}}}`

// TestOpenShiftTemplateInstances serves template.openshift.io/v1 templateinstances over our
// TemplateInstances' storage: one object through both groups, nothing lost either way, our
// requester rule, OpenShift's table and errors in OpenShift's field names.
func TestOpenShiftTemplateInstances(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	rc := s.client(t).Discovery().RESTClient()

	status, body := rawCall(t, rc, "POST", openshiftInstances, "application/json", "", []byte(openshiftInstance))
	var created struct {
		Spec struct {
			Requester struct{ Username string } `json:"requester"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(body, &created); status != http.StatusCreated || err != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	if u := created.Spec.Requester.Username; u == "forged" || u == "" {
		t.Errorf("requester %q: the server must set the caller", u)
	}

	// Through our group: the inline template, spec.secret as the one parametersFrom source.
	status, body = rawCall(t, rc, "GET", ourInstances+"/cm", "", "", nil)
	var ours map[string]any
	if err := json.Unmarshal(body, &ours); status != http.StatusOK || err != nil {
		t.Fatalf("get through templates.stencil.dev: %d %s", status, body)
	}
	spec := ours["spec"].(map[string]any)
	if from, _ := json.Marshal(spec["parametersFrom"]); string(from) != `[{"secretRef":{"name":"values"}}]` ||
		spec["template"].(map[string]any)["apiVersion"] != "template.openshift.io/v1" {
		t.Errorf("our form: %s", body)
	}

	// A field OpenShift's form lacks, set through ours, survives a read and write back through
	// OpenShift's group, and that write is no spec change.
	status, body = rawCall(t, rc, "PATCH", ourInstances+"/cm", string(types.MergePatchType), "", []byte(`{"spec":{"parameters":{"NAME":"x"}}}`))
	if status != http.StatusOK {
		t.Fatalf("patch: %d %s", status, body)
	}
	status, body = rawCall(t, rc, "GET", openshiftInstances+"/cm", "", "", nil)
	var theirs struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Status   struct {
			Conditions []struct{ Type, Status, Reason string } `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(body, &theirs); status != http.StatusOK || err != nil {
		t.Fatalf("get: %d %s", status, body)
	}
	if len(theirs.Status.Conditions) != 1 || theirs.Status.Conditions[0].Type != "Ready" || theirs.Status.Conditions[0].Reason != "NoCluster" {
		t.Errorf("conditions in OpenShift's form: %+v", theirs.Status.Conditions)
	}
	status, body = rawCall(t, rc, "PUT", openshiftInstances+"/cm", "application/json", "", body)
	if status != http.StatusOK || theirs.Metadata.Generation != 2 || !strings.Contains(string(body), `"generation":2`) {
		t.Fatalf("put back: %d %s", status, body)
	}
	if status, body = rawCall(t, rc, "GET", ourInstances+"/cm", "", "", nil); !strings.Contains(string(body), `"parameters":{"NAME":"x"}`) ||
		!strings.Contains(string(body), `"type":"Progressing"`) {
		t.Errorf("lost through OpenShift's group: %d %s", status, body)
	}

	// oc get templateinstances' columns.
	status, body = rawCall(t, rc, "GET", openshiftInstances, "", "application/json;as=Table;v=v1;g=meta.k8s.io", nil)
	var table metav1.Table
	if err := json.Unmarshal(body, &table); status != http.StatusOK || err != nil || len(table.Rows) != 1 {
		t.Fatalf("table: %d %s", status, body)
	}
	if len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[1].Name != "Template" || table.Rows[0].Cells[1] != "small" {
		t.Errorf("table: %+v %v", table.ColumnDefinitions, table.Rows[0].Cells)
	}

	// The status subresource reads; nobody writes it through this group.
	if status, body = rawCall(t, rc, "GET", openshiftInstances+"/cm/status", "", "", nil); status != http.StatusOK {
		t.Errorf("get status: %d %s", status, body)
	}
	if status, _ = rawCall(t, rc, "PUT", openshiftInstances+"/cm/status", "application/json", "", body); status != http.StatusMethodNotAllowed {
		t.Errorf("put status: %d, want 405", status)
	}

	// Every problem at once, in OpenShift's field names, of TemplateInstance.template.openshift.io.
	bad := `{"apiVersion":"template.openshift.io/v1","kind":"TemplateInstance","metadata":{"name":"bad"},"spec":{"secret":{"name":"Not_A_Name"},"template":{}}}`
	status, body = rawCall(t, rc, "POST", openshiftInstances, "application/json", "", []byte(bad))
	var st metav1.Status
	if err := json.Unmarshal(body, &st); status != http.StatusUnprocessableEntity || err != nil || st.Details == nil ||
		st.Details.Group != "template.openshift.io" || st.Details.Kind != "TemplateInstance" {
		t.Fatalf("want a 422: %d %s", status, body)
	}
	var fields []string
	for _, c := range st.Details.Causes {
		fields = append(fields, c.Field)
	}
	if got := strings.Join(fields, " "); !strings.Contains(got, "spec.secret.name") || !strings.Contains(got, "spec.template") {
		t.Errorf("causes: %v", st.Details.Causes)
	}

	// Server-side apply through OpenShift's group.
	apply := strings.Replace(openshiftInstance, `"name":"cm"`, `"name":"applied"`, 1)
	if status, body = rawCall(t, rc, "PATCH", openshiftInstances+"/applied?fieldManager=test", string(types.ApplyPatchType), "", []byte(apply)); status != http.StatusCreated {
		t.Fatalf("apply: %d %s", status, body)
	}
}
