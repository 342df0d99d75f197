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

package clients

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/typecheck/kindschema"
)

// shippedSchema is the Template's JSON Schema for editors.
var shippedSchema = filepath.Join(repoRoot, "artifacts", "schema", "template-v1alpha1.json")

// TestTemplateSchemaIsServed: the shipped schema is what the running server's
// /openapi/v3/apis/templates.stencil.dev/v1alpha1 makes, byte for byte.
func TestTemplateSchemaIsServed(t *testing.T) {
	doc, err := restClient(t).Get().AbsPath("/openapi/v3/apis/templates.stencil.dev/v1alpha1").
		SetHeader("Accept", "application/json").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fromServer, err := kindschema.Write(doc, kindschema.Kind{Group: "templates.stencil.dev", Version: "v1alpha1", Kind: "Template"})
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile(shippedSchema)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fromServer, shipped) {
		t.Errorf("%s is not what the server serves (run hack/update-template-schema.sh); served:\n%s", shippedSchema, fromServer)
	}
}

// TestTemplateSchemaWithAjv validates the example templates and a template with wrong fields
// against the shipped schema with ajv in strict mode: the examples are valid, and each wrong
// field of the other (the Template's, its metadata's, a parameter's) is an error at its path,
// as a YAML language server shows it in an editor.
func TestTemplateSchemaWithAjv(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"redis.yaml", "redis-v2.yaml", "app.yaml"} {
		files = append(files, jsonFile(t, dir, filepath.Join(repoRoot, "artifacts", "examples", name)))
	}
	wrong := jsonFile(t, dir, filepath.Join(repoRoot, "pkg", "typecheck", "kindschema", "testdata", "wrong-fields.yaml"))
	out := node(t, "template_schema.js", append([]string{shippedSchema}, append(files, wrong)...)...)
	t.Logf("ajv:\n%s", out)
	out = "\n" + out
	for _, f := range files {
		if !strings.Contains(out, "\nvalid "+f+"\n") {
			t.Errorf("ajv does not find %s valid", f)
		}
	}
	for _, want := range []string{
		"\ninvalid " + wrong,
		`  / additionalProperties {"additionalProperty":"parameter"}`,
		`  /metadata additionalProperties {"additionalProperty":"lables"}`,
		`  /parameters/0/required type {"type":"boolean"}`,
	} {
		if !strings.Contains(out, "\n"+strings.TrimPrefix(want, "\n")+"\n") {
			t.Errorf("ajv: no %q", want)
		}
	}
}

// jsonFile writes a YAML file as JSON into dir, as a language server reads it.
func jsonFile(t *testing.T, dir, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	js, err := positions.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))+".json")
	if err := os.WriteFile(out, js, 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}
