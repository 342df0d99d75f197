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
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/provenance"
)

// provenanceTemplate is the README's example with a secret parameter used in a Secret.
func provenanceTemplate(t *testing.T) []byte {
	data, err := os.ReadFile("../../artifacts/examples/app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(data), "parameters:\n", "parameters:\n- name: PASSWORD\n  secret: true\n  required: true\n", 1)
	body += "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: ${NAME}-db\n  stringData:\n    password: ${PASSWORD}\n"
	return []byte(body)
}

// listOf decodes an answer that must be a List.
func listOf(t *testing.T, resp rawResponse) (templatesv1.List, map[string]json.RawMessage) {
	t.Helper()
	if resp.status != http.StatusCreated {
		t.Fatalf("%d: %s", resp.status, resp.body)
	}
	var list templatesv1.List
	var members map[string]json.RawMessage
	if err := json.Unmarshal(resp.body, &list); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(resp.body, &members); err != nil {
		t.Fatal(err)
	}
	return list, members
}

// TestProvenanceAnswered: ?provenance=true on processedtemplates and on
// templates/{name}/processed answers the List with its items exactly as without it, and the
// provenance of each item's every field beside them, in the List's provenance member (which
// kubectl apply, reading items, ignores); a Secret's value never appears in it; a malformed
// value is a 400, and OpenShift's processedtemplates, which answers a Template, refuses it.
func TestProvenanceAnswered(t *testing.T) {
	const secret = "pr0venance-s3cret"
	body := provenanceTemplate(t)
	withParams := func(b []byte) []byte {
		return []byte(strings.Replace(string(b), "- name: PASSWORD\n  secret: true\n  required: true\n",
			"- name: PASSWORD\n  secret: true\n  required: true\n  value: "+secret+"\n", 1))
	}
	plain, members := listOf(t, shared.mustDo(t, "POST", apiPath("provenance", "processedtemplates"), ctYAML, withParams(body)))
	if _, ok := members["provenance"]; ok || plain.Provenance != nil {
		t.Fatal("an answer not asked for provenance has it")
	}
	traced, _ := listOf(t, shared.mustDo(t, "POST", apiPath("provenance", "processedtemplates?provenance=true"), ctYAML, withParams(body)))
	if !reflect.DeepEqual(decodeItems(t, plain.Items), decodeItems(t, traced.Items)) {
		t.Fatal("asking for provenance changed the items")
	}
	checkProvenance(t, traced, secret)

	if resp := shared.mustDo(t, "POST", apiPath("provenance", "templates"), ctYAML, body); resp.status != http.StatusCreated {
		t.Fatalf("storing the template: %d %s", resp.status, resp.body)
	}
	params := []byte(`{"parameters":{"PASSWORD":"` + secret + `"}}`)
	stored, _ := listOf(t, shared.mustDo(t, "POST", apiPath("provenance", "templates/my-app/processed?provenance=1"), ctJSON, params))
	checkProvenance(t, stored, secret)
	plainStored, _ := listOf(t, shared.mustDo(t, "POST", apiPath("provenance", "templates/my-app/processed"), ctJSON, params))
	if !reflect.DeepEqual(decodeItems(t, plainStored.Items), decodeItems(t, stored.Items)) {
		t.Fatal("asking for provenance changed the stored template's items")
	}

	for path, want := range map[string]int{
		apiPath("provenance", "templates/my-app/processed?provenance=maybe"):             http.StatusBadRequest,
		apiPath("provenance", "templates/my-app/processed?provenance=true&provenance=1"): http.StatusBadRequest,
	} {
		if resp := shared.mustDo(t, "POST", path, ctJSON, params); resp.status != want || !strings.Contains(string(resp.body), "provenance") {
			t.Errorf("%s: %d %s, want %d", path, resp.status, resp.body, want)
		}
	}
	openshift := `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"o"},"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}`
	resp := shared.mustDo(t, "POST", "/apis/template.openshift.io/v1/namespaces/provenance/processedtemplates?provenance=true", ctJSON, []byte(openshift))
	if resp.status != http.StatusBadRequest && resp.status != http.StatusNotFound {
		t.Errorf("OpenShift's processedtemplates with provenance: %d %s", resp.status, resp.body)
	}
}

// checkProvenance checks a List's provenance: every item described, every field with a source,
// the transformer that set the image named with its parameter, and no secret value.
func checkProvenance(t *testing.T, list templatesv1.List, secret string) {
	t.Helper()
	m := list.Provenance
	if m == nil || len(m.Objects) != len(list.Items) {
		t.Fatalf("provenance %v for %d items", m, len(list.Items))
	}
	matches, err := provenance.Find(m, "Deployment/my-app", "spec.template.spec.containers[0].image")
	if err != nil || len(matches) != 1 {
		t.Fatalf("the image: %v", err)
	}
	f := matches[0].Field
	if f.Source.Path != "objects[2].spec.template.spec.containers[0].image" || len(f.Steps) != 1 ||
		m.Steps[f.Steps[0]].Kind != "ImageTagTransformer" || m.Steps[f.Steps[0]].Parameters[0] != "IMAGE_TAG" {
		t.Errorf("the image's provenance: %+v, steps %+v", f, m.Steps)
	}
	matches, err = provenance.Find(m, "Secret/my-app-db", "stringData.password")
	if err != nil || len(matches) != 1 || len(matches[0].Field.Parameters) != 1 || matches[0].Field.Parameters[0] != "PASSWORD" {
		t.Errorf("the password's provenance: %v %v", matches, err)
	}
	data, _ := json.Marshal(m)
	if strings.Contains(string(data), secret) {
		t.Errorf("the provenance holds the secret value: %s", data)
	}
	for _, o := range m.Objects {
		for _, f := range o.Fields {
			if f.Source.Kind == "" || f.Source.Kind == provenance.Template && f.Source.Path == "" {
				t.Errorf("%s/%s %s: no source", o.Kind, o.Name, f.Path)
			}
		}
	}
}

// TestProvenanceThroughTheCLI: stencil process -f FILE --provenance asks the server, writes its
// provenance with the file's lines filled in, and prints the List's items only.
func TestProvenanceThroughTheCLI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app.yaml")
	if err := os.WriteFile(file, provenanceTemplate(t), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "provenance.json")
	stdout, stderr, err := stencil(t, "process", "-f", file, "-p", "PASSWORD=p", "--provenance", out, "-o", "json")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	if strings.Contains(stdout, `"provenance"`) {
		t.Error("the printed List has the provenance")
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var m provenance.Map
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	matches, err := provenance.Find(&m, "Deployment/my-app", "spec.template.spec.containers[0].image")
	if err != nil || len(matches) != 1 {
		t.Fatal(err)
	}
	if lines := provenance.Explain(&m, matches[0]); len(lines) != 2 || !strings.HasPrefix(lines[0], file+":77:11: written by the template") ||
		!strings.HasPrefix(lines[1], file+":40:3: step 2, transformers[1] ImageTagTransformer") {
		t.Errorf("why, from the server's answer and the file's lines:\n%s", strings.Join(lines, "\n"))
	}
}
