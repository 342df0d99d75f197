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
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenAPIDocumentsValidate fetches /openapi/v2 and the OpenAPI v3 documents of both groups
// and validates each with swagger-parser, as its users call it (SwaggerParser.validate with
// default options). On 3731d16 /openapi/v2 was invalid: the schema subresource's produces
// listed application/json twice, and Swagger 2.0 wants unique items there.
func TestOpenAPIDocumentsValidate(t *testing.T) {
	client := restClient(t)
	dir := t.TempDir()
	var files []string
	for _, path := range []string{"/openapi/v2", "/openapi/v3/apis/templates.stencil.dev/v1alpha1", "/openapi/v3/apis/template.openshift.io/v1"} {
		doc, err := client.Get().AbsPath(path).SetHeader("Accept", "application/json").DoRaw(context.Background())
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		file := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "_")+".json")
		if err := os.WriteFile(file, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	out := node(t, "openapi.js", files...)
	if strings.Count(out, "valid: ") != len(files) {
		t.Fatalf("swagger-parser:\n%s", out)
	}
	t.Logf("%s", out)
}
