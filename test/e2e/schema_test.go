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

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplateSchema reads templates/{name}/schema with kubectl get --raw through
// kube-apiserver's aggregator: a user whose role grants get on templates/schema (the
// stencil-process role, without any read of templates) gets the JSON Schema document; a user
// who may read templates but holds no get on templates/schema, and a user with no role, get
// 403 from Stencil's delegated authorization.
func TestTemplateSchema(t *testing.T) {
	ns := "e2e-schema"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
	mustKubectl(t, "admin", "", "create", "rolebinding", "schema-process", "-n", ns, "--clusterrole=stencil-process", "--user=processor")
	mustKubectl(t, "admin", "", "create", "role", "templates-only", "-n", ns, "--verb=get,list", "--resource=templates.templates.stencil.dev")
	mustKubectl(t, "admin", "", "create", "rolebinding", "templates-only", "-n", ns, "--role=templates-only", "--user=reader")

	path := "/apis/templates.stencil.dev/v1alpha1/namespaces/" + ns + "/templates/redis/schema"
	out, err := env.kubectl("processor", "", "get", "--raw", path)
	if err != nil {
		t.Fatalf("processor: %v %s", err, out)
	}
	var doc struct {
		Schema     string `json:"$schema"`
		Title      string `json:"title"`
		Properties map[string]struct {
			Type    string `json:"type"`
			Default any    `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if doc.Schema != "https://json-schema.org/draft/2020-12/schema" || doc.Title != "redis" ||
		doc.Properties["REPLICAS"].Type != "integer" || doc.Properties["REPLICAS"].Default != float64(1) || doc.Properties["NAME"].Default != "redis" {
		t.Errorf("the schema through kubectl: %s", out)
	}

	if out, err := env.kubectl("reader", "", "get", "template", "redis", "-n", ns); err != nil {
		t.Fatalf("reader get template: %v %s", err, out)
	}
	for _, user := range []string{"reader", "nobody"} {
		if out, err := env.kubectl(user, "", "get", "--raw", path); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s get templates/schema: want 403, got %v %s", user, err, out)
		}
	}
}
