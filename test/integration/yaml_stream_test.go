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
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestYAMLBodyOfSeveralDocuments: a YAML body is read as its one object whatever empty
// documents come before it (a Helm-converted template starts with `---` and comments), and a
// body of two objects is refused rather than cut to the first.
func TestYAMLBodyOfSeveralDocuments(t *testing.T) {
	rc := clientFor(t).Discovery().RESTClient()
	const base = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/"
	doc := func(name string) string {
		return "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: " + name + "}\n" +
			"objects:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: " + name + "}}\n"
	}
	leading := "---\n# Source: chart/templates/template.yaml\n---\n" + doc("yaml-stream")

	status, body := rawCall(t, rc, "POST", base+"processedtemplates", "application/yaml", "", []byte(leading))
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(body, &list); status != http.StatusCreated || err != nil || len(list.Items) != 1 {
		t.Fatalf("processing a stream with empty leading documents: %d %s", status, body)
	}
	if status, body := rawCall(t, rc, "POST", base+"templates", "application/yaml", "", []byte(leading)); status != http.StatusCreated {
		t.Fatalf("creating from a stream with empty leading documents: %d %s", status, body)
	}
	for _, path := range []string{"processedtemplates", "templates"} {
		status, body := rawCall(t, rc, "POST", base+path, "application/yaml", "", []byte(doc("one")+"---\n"+doc("two")))
		if status != http.StatusBadRequest || !strings.Contains(string(body), "the YAML body holds 2 documents") {
			t.Errorf("%s: two objects in one body: %d %s", path, status, body)
		}
	}
}

// TestYAMLBodyReader: a YAML body is read by pkg/positions and the JSON decoder, and answers
// what the same template sent as JSON answers; a strict decoder (Strict, and Warn, the
// default) still learns of the keys a YAML mapping repeats, which the conversion to JSON drops,
// ahead of the unknown fields, as the API machinery's YAML decoder lists them.
func TestYAMLBodyReader(t *testing.T) {
	const base = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/"
	data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", "cincinnati-deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	asJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	path := base + "processedtemplates"
	statusY, fromYAML, _ := postAs(t, path, "application/yaml", data)
	statusJ, fromJSON, _ := rawPost(t, path, asJSON)
	if statusY != http.StatusCreated || statusJ != http.StatusCreated {
		t.Fatalf("YAML %d %s\nJSON %d %s", statusY, fromYAML, statusJ, fromJSON)
	}
	if !bytes.Equal(fromYAML, fromJSON) {
		t.Errorf("the YAML body answers\n%s\nthe same template as JSON\n%s", fromYAML, fromJSON)
	}

	repeated := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: repeats}\n" +
		"message: a\nmessage: b\nobjects:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n"
	status, body, _ := postAs(t, path+"?fieldValidation=Strict", "application/yaml", []byte(repeated+"bogus: 1\n"))
	msg := string(body)
	if status != http.StatusBadRequest || !strings.Contains(msg, `key \"message\" already set in map`) || !strings.Contains(msg, `unknown field \"bogus\"`) ||
		strings.Index(msg, "already set") > strings.Index(msg, "unknown field") {
		t.Errorf("strict, a repeated key and an unknown field: %d %s", status, body)
	}
	status, body, warnings := postAs(t, path, "application/yaml", []byte(repeated))
	if status != http.StatusCreated || len(warnings) != 1 || !strings.Contains(warnings[0], `key "message" already set in map`) {
		t.Errorf("warn, a repeated key: %d %s, warnings %q", status, body, warnings)
	}
	// A key a merge brings and the mapping sets again is no repeat for the YAML decoder.
	merged := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata: {name: merged}\n" +
		"objects:\n- &base {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- <<: *base\n  metadata: {name: b}\n"
	_, wantErr := yaml.YAMLToJSONStrict([]byte(merged))
	status, body, warnings = postAs(t, path+"?fieldValidation=Strict", "application/yaml", []byte(merged))
	if (wantErr == nil) != (status == http.StatusCreated) {
		t.Errorf("strict, a merged key set again: %d %s (sigs.k8s.io/yaml's strict conversion: %v), warnings %q", status, body, wantErr, warnings)
	}
}
