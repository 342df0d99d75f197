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
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

const groupPath = "/apis/templates.stencil.dev/v1alpha1/namespaces/bad/"

// warningRecorder keeps the Warning headers a client receives.
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.warnings = append(w.warnings, text)
}

// rawPost posts body to path and returns the status, the answer and the warnings.
func rawPost(t *testing.T, path string, body []byte) (int, []byte, []string) {
	t.Helper()
	return postAs(t, path, "application/json", body)
}

// postAs posts body of the content type to path and returns the status, the answer and the
// warnings.
func postAs(t *testing.T, path, contentType string, body []byte) (int, []byte, []string) {
	t.Helper()
	recorder := &warningRecorder{}
	config := rest.CopyConfig(shared.Config)
	config.WarningHandler = recorder
	cs, err := clientset.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var status int
	path, query, _ := strings.Cut(path, "?")
	req := cs.TemplatesV1alpha1().RESTClient().Post().AbsPath(path).SetHeader("Content-Type", contentType).Body(body)
	if name, value, ok := strings.Cut(query, "="); ok {
		req = req.Param(name, value)
	}
	raw, _ := req.Do(context.Background()).StatusCode(&status).Raw()
	return status, raw, recorder.warnings
}

func TestProcessBadRequests(t *testing.T) {
	ctx := context.Background()
	stored := newTemplate("stored", nil)
	stored.Parameters = append(stored.Parameters,
		templatesParam("COUNT", "int", ""), templatesParam("SECRET", "", ""))
	stored.Parameters[3].Required = true
	if _, err := shared.client(t).TemplatesV1alpha1().Templates("bad").Create(ctx, stored, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	huge := []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","message":"` + strings.Repeat("x", 4<<20) + `"}`)
	cases := []struct {
		name   string
		path   string
		body   string
		status int
		causes []string
	}{
		{"missing required", "templates/stored/processed", `{"parameters":{"COUNT":"1"}}`, 422, []string{"parameters[3]: FieldValueRequired"}},
		{"bad int", "templates/stored/processed", `{"parameters":{"COUNT":"one","SECRET":"s"}}`, 422, []string{"parameters[2]: FieldValueInvalid"}},
		{"unknown parameter", "templates/stored/processed", `{"parameters":{"SECRET":"s","NOPE":"x"}}`, 422, []string{"parameters[NOPE]: FieldValueInvalid"}},
		{"unknown parameter ignored", "templates/stored/processed", `{"parameters":{"SECRET":"s","NOPE":"x"},"ignoreUnknownParameters":true}`, 201, nil},
		{"name differs from the URL", "templates/stored/processed", `{"metadata":{"name":"other"},"parameters":{"SECRET":"s"}}`, 422, []string{"metadata.name: FieldValueInvalid"}},
		{"missing template", "templates/absent/processed", `{}`, 404, nil},
		{"wrong kind to processed", "templates/stored/processed", `{"apiVersion":"v1","kind":"ConfigMap"}`, 400, nil},
		{"wrong kind to processedtemplates", "processedtemplates", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, 400, nil},
		{"malformed JSON", "processedtemplates", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template",`, 400, nil},
		// A broken template and the values it is given are reported together.
		{"invalid template", "processedtemplates", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","parameters":[{"name":"A","required":true},{"name":"1B"}],"objects":[{"kind":"ConfigMap"}]}`, 422,
			[]string{"objects[0].apiVersion: FieldValueRequired", "parameters[0]: FieldValueRequired", "parameters[1].name: FieldValueInvalid"}},
		{"every problem at once", "processedtemplates", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template",
			"parameters":[{"name":"NAME","required":true},{"name":"COUNT","type":"int","value":"abc"},{"name":"TOKEN","generate":"expression","from":"[a-z"}],
			"objectLabels":{"app":"-bad-"},
			"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"u":"${UNDECLARED}"}}],
			"transformers":[{"apiVersion":"builtin","kind":"NoSuchTransformer"},{"apiVersion":"builtin","kind":"PatchTransformer","target":{"kind":"Deployment"}}]}`, 422,
			[]string{"objectLabels: FieldValueInvalid", "objects[0].data.u: FieldValueInvalid", "parameters[0]: FieldValueRequired",
				"parameters[1].value: FieldValueInvalid", "parameters[2].from: FieldValueInvalid",
				"transformers[0].kind: FieldValueNotSupported", "transformers[1].patch: FieldValueRequired"}},
		{"required value missing in the body", "processedtemplates", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","parameters":[{"name":"A","required":true},{"name":"B","type":"bool","value":"true"}]}`, 422,
			[]string{"parameters[0]: FieldValueRequired"}},
		{"huge body", "processedtemplates", string(huge), 413, nil},
		{"dry run", "processedtemplates?dryRun=All", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}]}`, 201, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, raw, _ := rawPost(t, groupPath+tc.path, []byte(tc.body))
			if status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", status, tc.status, raw)
			}
			if status == 201 {
				var list struct{ APIVersion, Kind string }
				if err := json.Unmarshal(raw, &list); err != nil || list.APIVersion != "v1" || list.Kind != "List" {
					t.Fatalf("answer is not a v1 List: %.300s", raw)
				}
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatalf("answer is not a Status: %.300s", raw)
			}
			if tc.causes == nil {
				return
			}
			var got []string
			if st.Details != nil {
				for _, c := range st.Details.Causes {
					got = append(got, c.Field+": "+string(c.Type))
				}
			}
			if strings.Join(sorted(got), ",") != strings.Join(sorted(tc.causes), ",") {
				t.Fatalf("causes %v, want %v", got, tc.causes)
			}
		})
	}
}

// TestOpenShiftLeftoversWarn posts an OpenShift template that refers to an undeclared
// parameter: OpenShift keeps it verbatim, and so do we, with a Warning header.
func TestOpenShiftLeftoversWarn(t *testing.T) {
	body := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"legacy"},
	  "labels":{"app":"legacy"},
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":"${UNDECLARED}"}}]}`
	status, raw, warnings := rawPost(t, groupPath+"processedtemplates", []byte(body))
	if status != http.StatusCreated {
		t.Fatalf("status %d: %s", status, raw)
	}
	if !bytes.Contains(raw, []byte(`"x":"${UNDECLARED}"`)) {
		t.Fatalf("the undeclared reference was not kept: %s", raw)
	}
	if len(warnings) == 0 || !strings.Contains(strings.Join(warnings, "\n"), "UNDECLARED") {
		t.Fatalf("no warning about UNDECLARED: %v", warnings)
	}
	// The legacy spelling is OpenShift's too.
	legacy := strings.Replace(body, "template.openshift.io/v1", "v1", 1)
	if status, raw, _ := rawPost(t, groupPath+"processedtemplates", []byte(legacy)); status != http.StatusCreated {
		t.Fatalf("legacy apiVersion v1: status %d: %s", status, raw)
	}
}

// TestStoredOpenShiftTemplateWarns stores a template of OpenShift's dialect that declares a
// parameter twice: the store takes it, as OpenShift does, and says so in a Warning header; the
// same template with a problem of its own is refused with a 422 and no such warning.
func TestStoredOpenShiftTemplateWarns(t *testing.T) {
	body := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","dialect":"OpenShift","metadata":{"name":"twice"},
	  "parameters":[{"name":"P","value":"a"},{"name":"P","value":"b"}],
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"p":"${P}"}}]}`
	status, raw, warnings := rawPost(t, groupPath+"templates", []byte(body))
	if status != http.StatusCreated {
		t.Fatalf("status %d: %s", status, raw)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "parameter P is declared 2 times") {
		t.Fatalf("no warning about P: %v", warnings)
	}
	refused := strings.Replace(strings.Replace(body, `"twice"`, `"twice-refused"`, 1), `"kind":"ConfigMap",`, "", 1)
	status, raw, warnings = rawPost(t, groupPath+"templates", []byte(refused))
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422: %s", status, raw)
	}
	if strings.Contains(strings.Join(warnings, "\n"), "declared 2 times") {
		t.Fatalf("a refused template warned: %v", warnings)
	}
}
