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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/client"
)

// TestTemplateSchema checks templates/{name}/schema through the real server: the document as
// it is (no Kubernetes object around it), typed and in parameter order, a secret's default
// kept out, discovery's get verb, a 404 for a template that does not exist, and the CLI
// printing the same document for the stored template and for its file.
func TestTemplateSchema(t *testing.T) {
	ctx := context.Background()
	cs := shared.client(t)
	tpl := newTemplate("schema", nil)
	tpl.Annotations = map[string]string{"openshift.io/display-name": "Schema demo"}
	tpl.Message = ""
	tpl.Parameters = []templatesv1.Parameter{
		{Name: "REPLICAS", Type: "int", Value: "2", Minimum: ptrTo(templatesv1.NumberBound("1")), Maximum: ptrTo(templatesv1.NumberBound("10"))},
		{Name: "TIER", DisplayName: "Tier", Enum: []string{"web", "db"}, Required: true},
		{Name: "PASSWORD", Secret: true, Value: "hunter2"},
		{Name: "ZONES", Type: "json", Items: &templatesv1.JSONValueSchema{Type: "string"}},
	}
	tpl.Objects = rawObjects(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"${REPLICAS}${TIER}${PASSWORD}${ZONES}"}}`)
	if _, err := cs.TemplatesV1alpha1().Templates("cli").Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	var contentType string
	raw, err := cs.TemplatesV1alpha1().RESTClient().Get().AbsPath("/apis/templates.stencil.dev/v1alpha1/namespaces/cli/templates/schema/schema").
		Do(ctx).ContentType(&contentType).Raw()
	if err != nil || contentType != "application/json" {
		t.Fatalf("GET schema: %v, content type %q", err, contentType)
	}
	var doc struct {
		Schema     string                     `json:"$schema"`
		Title      string                     `json:"title"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Additional *bool                      `json:"additionalProperties"`
		Kind       *string                    `json:"kind"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if doc.Schema != "https://json-schema.org/draft/2020-12/schema" || doc.Title != "Schema demo" || doc.Kind != nil ||
		!slices.Equal(doc.Required, []string{"TIER"}) || doc.Additional == nil || *doc.Additional {
		t.Errorf("the document: %s", raw)
	}
	for name, want := range map[string]string{
		"REPLICAS": `{"type":"integer","default":2,"minimum":1,"maximum":10,"x-stencil-type":"int"}`,
		"TIER":     `{"type":"string","title":"Tier","enum":["web","db"],"minLength":1,"x-stencil-type":"string"}`,
		"PASSWORD": `{"type":"string","writeOnly":true,"x-stencil-secret":true,"x-stencil-type":"string"}`,
		"ZONES":    `{"type":"array","items":{"type":"string"},"x-stencil-type":"json"}`,
	} {
		if got := string(doc.Properties[name]); got != want {
			t.Errorf("%s: got %s, want %s", name, got, want)
		}
	}
	if i, j := strings.Index(string(raw), `"REPLICAS"`), strings.Index(string(raw), `"ZONES"`); i < 0 || j < i {
		t.Errorf("the properties are not in the template's order: %s", raw)
	}
	if strings.Contains(string(raw), "hunter2") {
		t.Errorf("the secret default is in the schema: %s", raw)
	}

	if _, err := client.TemplateSchema(ctx, cs.TemplatesV1alpha1().RESTClient(), "cli", "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("the schema of a missing template: want 404, got %v", err)
	}
	resources, err := cs.Discovery().ServerResourcesForGroupVersion("templates.stencil.dev/v1alpha1")
	must(t, err)
	for _, r := range resources.APIResources {
		if r.Name == "templates/schema" && !slices.Equal(r.Verbs, []string{"get"}) {
			t.Errorf("templates/schema verbs %v, want [get]", r.Verbs)
		}
	}

	stored, stderr, err := stencil(t, "parameters", "schema", "-o", "json-schema")
	if err != nil {
		t.Fatalf("stencil parameters NAME -o json-schema: %v %s", err, stderr)
	}
	file := filepath.Join(t.TempDir(), "schema.yaml")
	tpl.APIVersion, tpl.Kind = "templates.stencil.dev/v1alpha1", "Template"
	data, err := yaml.Marshal(tpl)
	must(t, err)
	must(t, os.WriteFile(file, data, 0o600))
	local, stderr, err := stencil(t, "parameters", "-f", file, "-o", "json-schema")
	if err != nil {
		t.Fatalf("stencil parameters -f -o json-schema: %v %s", err, stderr)
	}
	if stored != local || !strings.Contains(stored, `"x-stencil-secret": true`) {
		t.Errorf("the CLI's schemas differ:\nstored %s\nfile   %s", stored, local)
	}
}
