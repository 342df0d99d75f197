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
