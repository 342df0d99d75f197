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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRBAC checks that every verb reaching Stencil through the aggregator is authorized by
// kube-apiserver's RBAC for the user who made it.
func TestRBAC(t *testing.T) {
	ns := "e2e-rbac"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
	mustKubectl(t, "admin", "", "create", "rolebinding", "processor-process", "-n", ns, "--clusterrole=stencil-process", "--user=processor")
	mustKubectl(t, "admin", "", "create", "rolebinding", "viewer-view", "-n", ns, "--clusterrole=stencil-view", "--user=viewer")

	cases := []struct {
		user    string
		args    []string
		allowed bool
	}{
		{"processor", []string{"get", "templates", "-n", ns}, false},
		{"viewer", []string{"get", "templates", "-n", ns}, true},
		{"viewer", []string{"get", "template", "redis", "-n", ns}, true},
		{"viewer", []string{"delete", "template", "redis", "-n", ns}, false},
		{"nobody", []string{"get", "templates", "-n", ns}, false},
		{"nobody", []string{"get", "template", "redis", "-n", ns}, false},
		{"viewer", []string{"get", "templates", "-n", "default"}, false},
	}
	for _, tc := range cases {
		out, err := env.kubectl(tc.user, "", tc.args...)
		switch {
		case tc.allowed && err != nil:
			t.Errorf("%s %v: want allowed, got %v", tc.user, tc.args, err)
		case !tc.allowed && (err == nil || !strings.Contains(err.Error(), "Forbidden")):
			t.Errorf("%s %v: want 403 Forbidden, got %v %s", tc.user, tc.args, err, out)
		}
	}

	for _, tc := range []struct {
		user    string
		allowed bool
	}{{"viewer", false}, {"nobody", false}} {
		_, err := env.kubectl(tc.user, "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
		if err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s create: want 403, got %v", tc.user, err)
		}
	}

	// Processing needs create on templates/processed only: the processor, who cannot read
	// templates, can process one; the viewer, who can, cannot.
	params := filepath.Join(t.TempDir(), "params.json")
	if err := os.WriteFile(params, []byte(`{"parameters":{"NAME":"rbac"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	processed := "/apis/templates.stencil.dev/v1alpha1/namespaces/" + ns + "/templates/redis/processed"
	if out, err := env.kubectl("processor", "", "create", "--raw", processed, "-f", params); err != nil || !strings.Contains(out, `"kind":"List"`) {
		t.Errorf("processor processing: %v %.200s", err, out)
	}
	for _, user := range []string{"viewer", "nobody"} {
		if _, err := env.kubectl(user, "", "create", "--raw", processed, "-f", params); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s processing: want 403, got %v", user, err)
		}
	}
	mysql := filepath.Join(repoRoot, "pkg", "process", "testdata", "mysql-persistent.json")
	if _, err := env.kubectl("processor", "", "create", "--raw", "/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/processedtemplates", "-f", mysql); err != nil {
		t.Errorf("processor on processedtemplates: %v", err)
	}
	// processedtemplates is served by a handler of its own: a user without create on it is
	// refused by the authorization filter before it, and nothing is processed (the replicas'
	// count of processing requests does not move).
	processedBefore := processingRequests(t)
	for _, user := range []string{"viewer", "nobody"} {
		for _, group := range []string{"templates.stencil.dev/v1alpha1", "template.openshift.io/v1"} {
			if _, err := env.kubectl(user, "", "create", "--raw", "/apis/"+group+"/namespaces/"+ns+"/processedtemplates", "-f", mysql); err == nil || !strings.Contains(err.Error(), "Forbidden") {
				t.Errorf("%s on %s processedtemplates: want 403, got %v", user, group, err)
			}
		}
	}
	if after := processingRequests(t); after != processedBefore {
		t.Errorf("refused users' processedtemplates requests were processed: %v requests before, %v after", processedBefore, after)
	}

	// A template given to processedtemplates may import only what its caller may get: the
	// processor cannot read another template's transformers that way, the admin can.
	mustKubectl(t, "admin", `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: private-transformers}
transformers:
- {apiVersion: builtin, kind: LabelTransformer, labels: {secret: "value"}}
`, "apply", "-n", ns, "-f", "-")
	importer := filepath.Join(t.TempDir(), "importer.json")
	if err := os.WriteFile(importer, []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template",
	  "transformersFrom":[{"name":"private-transformers"}],
	  "objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	processedtemplates := "/apis/templates.stencil.dev/v1alpha1/namespaces/" + ns + "/processedtemplates"
	if out, err := env.kubectl("processor", "", "create", "--raw", processedtemplates, "-f", importer); err == nil || strings.Contains(out, "secret") {
		t.Errorf("processor imported a template it may not get: %v %s", err, out)
	}
	if out, err := env.kubectl("admin", "", "create", "--raw", processedtemplates, "-f", importer); err != nil || !strings.Contains(out, `"secret":"value"`) {
		t.Errorf("admin import: %v %s", err, out)
	}

	// Impersonation goes through kube-apiserver's impersonation checks and then Stencil's
	// delegated authorization for the impersonated user.
	if _, err := env.kubectl("admin", "", "get", "templates", "-n", ns, "--as=viewer"); err != nil {
		t.Errorf("admin --as=viewer: %v", err)
	}
	if _, err := env.kubectl("admin", "", "get", "templates", "-n", ns, "--as=nobody"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("admin --as=nobody: want 403, got %v", err)
	}
}

// processingRequests adds up the processing requests every running replica has served
// through processedtemplates.
func processingRequests(t *testing.T) float64 {
	t.Helper()
	var n float64
	for i := range env.replicas {
		if env.replicas[i].cmd == nil {
			continue
		}
		config, err := env.replicaConfig(i)
		if err != nil {
			t.Fatal(err)
		}
		n += promSum(promText(t, config), "stencil_processing_requests_total", map[string]string{"endpoint": "processedtemplates"})
	}
	return n
}
