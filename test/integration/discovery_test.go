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
	"slices"
	"strings"
	"testing"
)

// TestDiscoveryAndOpenAPI checks what clients learn about the processing endpoints: create
// only, and OpenAPI operations of their own that answer a List.
func TestDiscoveryAndOpenAPI(t *testing.T) {
	cs := shared.client(t)
	resources, err := cs.Discovery().ServerResourcesForGroupVersion("templates.stencil.dev/v1alpha1")
	must(t, err)
	verbs := map[string][]string{}
	// Clients that look a resource up by kind (Python's dynamic client, Ansible) refuse a
	// kind that two resources report; subresources do not count, they are found by name.
	byKind := map[string][]string{}
	for _, r := range resources.APIResources {
		verbs[r.Name] = r.Verbs
		if !strings.Contains(r.Name, "/") {
			byKind[r.Kind] = append(byKind[r.Kind], r.Name)
		}
	}
	for kind, names := range byKind {
		if len(names) > 1 {
			t.Errorf("kind %s is reported by %v; lookups by kind need one resource", kind, names)
		}
	}
	if got := byKind["ProcessedTemplate"]; !slices.Equal(got, []string{"processedtemplates"}) {
		t.Errorf("kind ProcessedTemplate is reported by %v, want processedtemplates", got)
	}
	for _, name := range []string{"processedtemplates", "templates/processed"} {
		if !slices.Equal(verbs[name], []string{"create"}) {
			t.Errorf("%s verbs %v, want [create]", name, verbs[name])
		}
	}
	if !slices.Contains(verbs["customtransforms"], "watch") || !slices.Contains(verbs["templates"], "patch") {
		t.Errorf("stored resources: %v", verbs)
	}

	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/openapi/v2").DoRaw(context.Background())
	must(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	must(t, json.Unmarshal(raw, &doc))
	ids := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, rawOp := range ops {
			if method == "parameters" {
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
				Responses   map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"responses"`
			}
			must(t, json.Unmarshal(rawOp, &op))
			if ids[op.OperationID] {
				t.Errorf("operation ID %s twice", op.OperationID)
			}
			ids[op.OperationID] = true
			if method == "post" && (strings.HasSuffix(path, "/processedtemplates") || strings.HasSuffix(path, "/processed")) {
				if ref := op.Responses["201"].Schema.Ref; !strings.HasSuffix(ref, ".List") {
					t.Errorf("%s answers %q, want the List", path, ref)
				}
			}
		}
	}
	for _, path := range []string{"/v3/apis/templates.stencil.dev/v1alpha1"} {
		if _, err := cs.Discovery().RESTClient().Get().AbsPath("/openapi" + path).DoRaw(context.Background()); err != nil {
			t.Errorf("OpenAPI v3 %s: %v", path, err)
		}
	}
}
