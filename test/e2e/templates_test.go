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
	"path/filepath"
	"strings"
	"testing"
)

// TestKubectlTemplates is the newcomer's tour through the aggregator: create, get with the
// table columns, explain from OpenAPI, server-side apply twice.
func TestKubectlTemplates(t *testing.T) {
	example := filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml")
	ns := "e2e-kubectl"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", example)

	out := mustKubectl(t, "admin", "", "get", "templates", "-n", ns)
	header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	if strings.Join(header, " ") != "NAME PARAMETERS OBJECTS AGE" {
		t.Fatalf("columns: %q", out)
	}
	if !strings.Contains(out, "3 (1 required, 1 generated)") {
		t.Fatalf("parameters column: %q", out)
	}

	out = mustKubectl(t, "admin", "", "explain", "template.parameters")
	if !strings.Contains(out, "GROUP:      templates.stencil.dev") || !strings.Contains(out, "generate") {
		t.Fatalf("explain: %s", out)
	}

	for i := 0; i < 2; i++ {
		out = mustKubectl(t, "admin", "", "apply", "--server-side", "-n", ns, "-f", example)
		if !strings.Contains(out, "serverside-applied") {
			t.Fatalf("apply --server-side #%d: %s", i+1, out)
		}
	}
	out = mustKubectl(t, "admin", "", "get", "template", "redis", "-n", ns, "--show-managed-fields", "-o", "jsonpath={.metadata.managedFields[*].manager}")
	if !strings.Contains(out, "kubectl") {
		t.Fatalf("managed fields: %s", out)
	}
}

func mustKubectl(t *testing.T, user, stdin string, args ...string) string {
	t.Helper()
	out, err := env.kubectl(user, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
