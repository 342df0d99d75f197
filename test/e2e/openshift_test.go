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
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// openshiftAPIService is the APIService of overlays/openshift-templates.
const openshiftAPIService = "v1.template.openshift.io"

// sharedOpenShiftTemplates are the real OpenShift templates of the repository, each with the
// values that make processing deterministic (every generated parameter given a value).
var sharedOpenShiftTemplates = []struct {
	file, name string
	values     map[string]string
}{
	{"mysql-persistent.json", "mysql-persistent", map[string]string{"MYSQL_USER": "u", "MYSQL_PASSWORD": "p", "MYSQL_ROOT_PASSWORD": "r"}},
	{"django-psql-persistent.json", "django-psql-persistent", map[string]string{"NAMESPACE": "images", "APPLICATION_DOMAIN": "django.example.com",
		"GITHUB_WEBHOOK_SECRET": "w", "DJANGO_SECRET_KEY": "k", "DATABASE_USER": "u", "DATABASE_PASSWORD": "p"}},
	{"cincinnati-deployment.yaml", "cincinnati", map[string]string{"ENVIRONMENT_SECRETS": `{"a":"b"}`}},
}

// serveOpenShiftTemplates installs what overlays/openshift-templates adds (its APIService on
// the suite's Service port, its ClusterRoles, the server's right to keep the APIService's CA)
// and restarts the replicas with its flags; the cleanup takes it all back.
func serveOpenShiftTemplates(t *testing.T) {
	overlay := filepath.Join(repoRoot, "artifacts", "deploy", "overlays", "openshift-templates")
	mustKubectl(t, "admin", "", "apply", "-f", filepath.Join(overlay, "clusterroles.yaml"))
	apiService, err := os.ReadFile(filepath.Join(overlay, "apiservice.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "admin", strings.Replace(string(apiService), "port: 443", fmt.Sprintf("port: %d", env.servicePort), 1), "apply", "-f", "-")
	mustKubectl(t, "admin", "", "patch", "clusterrole", "stencil-apiserver", "--type=json",
		"-p", `[{"op":"add","path":"/rules/3/resourceNames/-","value":"`+openshiftAPIService+`"}]`)
	t.Cleanup(func() {
		// An APIService nobody serves would break discovery for every later test.
		_, _ = env.kubectl("admin", "", "delete", "apiservice", openshiftAPIService, "--ignore-not-found")
		if err := env.restartReplicasWith(nil, nil); err != nil {
			t.Error(err)
		}
		_, _ = env.kubectl("admin", "", "delete", "-f", filepath.Join(overlay, "clusterroles.yaml"), "--ignore-not-found")
	})
	if err := env.restartReplicasWith([]string{"--openshift-templates", "--apiservice-name=" + openshiftAPIService}, nil); err != nil {
		t.Fatal(err)
	}
	if err := waitFor(2*time.Minute, "APIService "+openshiftAPIService+" Available", func(context.Context) error {
		out, err := env.kubectl("admin", "", "get", "apiservice", openshiftAPIService, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
		if err != nil {
			return err
		}
		if out != "True" {
			return fmt.Errorf("Available=%q", out)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// explainEventually runs kubectl explain of field as user until its answer holds want. The
// APIService of template.openshift.io is new to the aggregator in these tests, and the aggregator
// reads an aggregated server's OpenAPI v3 on its own schedule: once a minute, and after a failed
// read (the replicas were restarting) with a backoff that starts at a minute. Until then explain
// answers "couldn't find resource" though discovery already serves the resource.
func explainEventually(t *testing.T, user, field, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out, err := env.kubectl(user, "", "explain", field)
		if err == nil && strings.Contains(out, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl explain %s: not holding %q within 5 minutes: %v\n%s", field, want, err, out)
		}
		time.Sleep(2 * time.Second)
	}
}

// fillFirstDeclarations writes values into a template's parameters as oc's injectUserVars does:
// the first declaration of each name gets the value, and its generator is cleared.
func fillFirstDeclarations(t *testing.T, template map[string]any, values map[string]string) []byte {
	t.Helper()
	set := map[string]bool{}
	params, _ := template["parameters"].([]any)
	for _, p := range params {
		param := p.(map[string]any)
		name, _ := param["name"].(string)
		if v, ok := values[name]; ok && !set[name] {
			param["value"], set[name] = v, true
			delete(param, "generate")
		}
	}
	body, err := json.Marshal(template)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// processedObjects posts a Template to processedtemplates as user, with kubectl create --raw
// (the request oc's template processor client sends), and returns the answer's objects after
// checking it is OpenShift's answer: a Template.
func processedObjects(t *testing.T, user, ns string, body []byte) []any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out := mustKubectl(t, user, "", "create", "--raw", "/apis/template.openshift.io/v1/namespaces/"+ns+"/processedtemplates", "-f", path)
	var answer struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Objects    []any  `json:"objects"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.APIVersion != "template.openshift.io/v1" || answer.Kind != "Template" {
		t.Fatalf("processedtemplates answered %s %s, want a template.openshift.io/v1 Template", answer.APIVersion, answer.Kind)
	}
	return answer.Objects
}

// localItems is what stencil process --local makes of file with values.
func localItems(t *testing.T, file string, values map[string]string) []any {
	t.Helper()
	args := []string{"process", "--local", "-f", file, "-o", "json"}
	for k, v := range values {
		args = append(args, "-p", k+"="+v)
	}
	out, _ := mustStencil(t, "admin", args...)
	var list struct {
		Items []any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Items) == 0 {
		t.Fatalf("stencil process --local: %v %s", err, out)
	}
	return list.Items
}

// TestOpenShiftTemplates serves template.openshift.io/v1 through the real kube-apiserver and
// sends it the requests oc sends.
func TestOpenShiftTemplates(t *testing.T) {
	serveOpenShiftTemplates(t)
	const ns = "openshift-compat"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	for _, role := range []string{"stencil-openshift-templates-view", "stencil-openshift-templates-edit"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "editor-"+role, "-n", ns, "--clusterrole="+role, "--user=editor")
	}
	mustKubectl(t, "admin", "", "create", "rolebinding", "viewer-openshift-view", "-n", ns, "--clusterrole=stencil-openshift-templates-view", "--user=viewer")
	mustKubectl(t, "admin", "", "create", "rolebinding", "editor-stencil-view", "-n", ns, "--clusterrole=stencil-view", "--user=editor")

	dir := filepath.Join(repoRoot, "pkg", "process", "testdata")
	for _, tc := range sharedOpenShiftTemplates {
		// kubectl create -f of the file as it is: kind Template of template.openshift.io/v1.
		mustKubectl(t, "editor", "", "create", "-n", ns, "-f", filepath.Join(dir, tc.file))
	}
	out := mustKubectl(t, "editor", "", "get", "templates.template.openshift.io", "-n", ns, "-o", "name")
	var names []string
	for _, tc := range sharedOpenShiftTemplates {
		names = append(names, "template.template.openshift.io/"+tc.name)
	}
	if got := strings.Fields(out); !reflect.DeepEqual(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(names))) {
		t.Errorf("kubectl get templates.template.openshift.io: %q, want %q", got, names)
	}
	table := mustKubectl(t, "editor", "", "get", "templates.template.openshift.io", "-n", ns)
	if !strings.HasPrefix(table, "NAME") || !strings.Contains(strings.SplitN(table, "\n", 2)[0], "DESCRIPTION") {
		t.Errorf("oc get templates' columns:\n%s", table)
	}

	explainEventually(t, "editor", "templates.template.openshift.io.parameters", "generate")
	for _, tc := range sharedOpenShiftTemplates {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.file)
			// Server-side apply of the same file through the aggregator.
			mustKubectl(t, "editor", "", "apply", "--server-side", "-n", ns, "-f", file)
			// The same object through our group.
			ours := mustKubectl(t, "editor", "", "get", "templates.templates.stencil.dev", tc.name, "-n", ns, "-o", "jsonpath={.dialect}")
			if ours != "OpenShift" {
				t.Errorf("through templates.stencil.dev: dialect %q, want OpenShift", ours)
			}
			want := localItems(t, file, tc.values)

			// oc process -f FILE -p K=V: the file, values in the first declarations, POSTed.
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var fromFile map[string]any
			if err := yaml.Unmarshal(data, &fromFile); err != nil {
				t.Fatal(err)
			}
			if got := processedObjects(t, "editor", ns, fillFirstDeclarations(t, fromFile, tc.values)); !sameObjects(got, want) {
				t.Errorf("oc process -f: the objects differ from stencil process --local's")
			}

			// oc process NAME -p K=V: GET the template, values in, POST it.
			var stored map[string]any
			raw := mustKubectl(t, "editor", "", "get", "--raw", "/apis/template.openshift.io/v1/namespaces/"+ns+"/templates/"+tc.name)
			if err := json.Unmarshal([]byte(raw), &stored); err != nil {
				t.Fatal(err)
			}
			if got := processedObjects(t, "editor", ns, fillFirstDeclarations(t, stored, tc.values)); !sameObjects(got, want) {
				t.Errorf("oc process NAME: the objects differ from stencil process --local's")
			}

			// oc new-app --template NAME: finds it by listing the namespace's templates, then
			// processes it the same way.
			list := mustKubectl(t, "editor", "", "get", "--raw", "/apis/template.openshift.io/v1/namespaces/"+ns+"/templates")
			var templates struct {
				Kind  string           `json:"kind"`
				Items []map[string]any `json:"items"`
			}
			if err := json.Unmarshal([]byte(list), &templates); err != nil || templates.Kind != "TemplateList" {
				t.Fatalf("list: %v %s", err, templates.Kind)
			}
			var found map[string]any
			for _, item := range templates.Items {
				if item["metadata"].(map[string]any)["name"] == tc.name {
					found = item
				}
			}
			if found == nil {
				t.Fatalf("%s not in the list", tc.name)
			}
			if got := processedObjects(t, "editor", ns, fillFirstDeclarations(t, found, tc.values)); !sameObjects(got, want) {
				t.Errorf("oc new-app --template: the objects differ from stencil process --local's")
			}
		})
	}

	// A user who may read templates but not create processedtemplates is refused.
	body := filepath.Join(t.TempDir(), "mysql.json")
	data, err := os.ReadFile(filepath.Join(dir, "mysql-persistent.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(body, data, 0o600); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "viewer", "", "get", "templates.template.openshift.io", "-n", ns)
	if out, err := env.kubectl("viewer", "", "create", "--raw", "/apis/template.openshift.io/v1/namespaces/"+ns+"/processedtemplates", "-f", body); err == nil ||
		!strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("viewer processed a template: %v %s", err, out)
	}
	t.Run("templateinstances", testOpenShiftTemplateInstances)
}

// sameObjects compares processed objects by meaning, not member order.
func sameObjects(a, b []any) bool {
	norm := func(v any) any {
		data, _ := json.Marshal(v)
		var out any
		_ = json.Unmarshal(data, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
