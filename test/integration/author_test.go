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
)

// TestTemplateAuthorIsRecordedInBothGroups: the server records a Template's author from the
// authenticated user whichever group the Template is written through, over an author the
// client sends in either form, and both groups read the same record.
func TestTemplateAuthorIsRecordedInBothGroups(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	rc := s.client(t).Discovery().RESTClient()
	const ours = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates"
	forged := `{"username":"system:admin","groups":["system:masters"]}`

	// Through OpenShift's group, with a forged author in the annotation that keeps our fields.
	openshiftBody := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"os",
	  "annotations":{"templates.stencil.dev/stencil-fields":"{\"dialect\":\"OpenShift\",\"author\":` + strings.ReplaceAll(forged, `"`, `\"`) + `}"}},
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}]}`
	if status, body := rawCall(t, rc, "POST", openshiftTemplates, "application/json", "", []byte(openshiftBody)); status != http.StatusCreated {
		t.Fatalf("create through template.openshift.io: %d %s", status, body)
	}
	// Through ours, with a forged author field.
	ourBody := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"st"},"author":` + forged + `,
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}]}`
	if status, body := rawCall(t, rc, "POST", ours, "application/json", "", []byte(ourBody)); status != http.StatusCreated {
		t.Fatalf("create through templates.stencil.dev: %d %s", status, body)
	}

	for _, name := range []string{"os", "st"} {
		status, body := rawCall(t, rc, "GET", ours+"/"+name, "", "", nil)
		var got struct {
			Author struct{ Username string }
		}
		if err := json.Unmarshal(body, &got); status != http.StatusOK || err != nil {
			t.Fatalf("get %s: %d %s", name, status, body)
		}
		if got.Author.Username != "stencil-admin" {
			t.Errorf("%s: the author is %+v, not the local admin who wrote it", name, got.Author)
		}
		// OpenShift's form reads the same record in the annotation.
		status, body = rawCall(t, rc, "GET", openshiftTemplates+"/"+name, "", "", nil)
		var os struct {
			Metadata struct{ Annotations map[string]string }
		}
		if err := json.Unmarshal(body, &os); status != http.StatusOK || err != nil {
			t.Fatalf("get %s through template.openshift.io: %d %s", name, status, body)
		}
		if a := os.Metadata.Annotations["templates.stencil.dev/stencil-fields"]; !strings.Contains(a, `"author":{"username":"stencil-admin"`) {
			t.Errorf("%s through template.openshift.io: %q", name, a)
		}
	}
}
