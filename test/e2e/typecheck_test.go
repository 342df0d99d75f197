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
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/netutil"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
)

// gadgetCRD is a CRD of the suite's own, with an enum and a required field.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.e2e.stencil.dev
spec:
  group: e2e.stencil.dev
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              color: {type: string, enum: [red, green]}
              size: {type: integer}
`

// typeErrorsTemplate has the four kinds of type errors, one in a CRD's kind.
const typeErrorsTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata:
  name: type-errors
parameters:
- name: REPLICAS
  value: "2"
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    replica: 2
    replicas: ${REPLICAS}
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx}]
- apiVersion: e2e.stencil.dev/v1
  kind: Gadget
  metadata:
    name: g
  spec:
    color: purple
`

// TestTemplateTypeCheck: with a CRD installed in a real kube-apiserver, stencil lint --cluster
// finds the four kinds of type errors in a template file, the CRD's among them, at their
// lines; creating the template through the aggregator stores it and answers the same findings
// as Warning headers (kubectl prints them); a replica started with --template-type-check=refuse
// answers 422 with the errors and stores nothing.
func TestTemplateTypeCheck(t *testing.T) {
	ns := "e2e-typecheck"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	mustKubectl(t, "admin", "", "create", "rolebinding", "editor-stencil-edit", "-n", ns, "--clusterrole=stencil-edit", "--user=editor")
	mustKubectl(t, "admin", "", "create", "rolebinding", "editor-stencil-view", "-n", ns, "--clusterrole=stencil-view", "--user=editor")
	mustKubectl(t, "admin", gadgetCRD, "apply", "-f", "-")
	mustKubectl(t, "admin", "", "wait", "--for=condition=Established", "--timeout=60s", "crd/gadgets.e2e.stencil.dev")
	// The CRD's schema reaches /openapi/v3 a moment after it is established.
	if err := waitFor(time.Minute, "the CRD in /openapi/v3", func(context.Context) error {
		_, err := env.kubectl("admin", "", "get", "--raw", "/openapi/v3/apis/e2e.stencil.dev/v1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`:14:5: error: objects[0].spec.replica: unknown field "replica"`,
		`:15:5: error: objects[0].spec.replicas: "${REPLICAS}" substitutes as text`,
		`:25:3: error: objects[1].spec.size: Gadget (e2e.stencil.dev/v1) needs size here`,
		`:26:5: error: objects[1].spec.color: "purple" is not one of "red", "green"`,
	}

	file := filepath.Join(t.TempDir(), "type-errors.yaml")
	if err := os.WriteFile(file, []byte(typeErrorsTemplate), 0o600); err != nil {
		t.Fatal(err)
	}
	lint := exec.Command(env.bin.kubectlStencil, "lint", "--cluster", file)
	lint.Env = append(os.Environ(), "KUBECONFIG="+env.kubeconfigs["editor"])
	var lintOut, lintErr bytes.Buffer
	lint.Stdout, lint.Stderr = &lintOut, &lintErr
	err := lint.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Errorf("stencil lint --cluster: %v, want exit 1: %s", err, lintErr.String())
	}
	for _, w := range want {
		if !strings.Contains(lintOut.String(), file+w) {
			t.Errorf("stencil lint --cluster: no %s%s in:\n%s", file, w, lintOut.String())
		}
	}

	// Through the aggregator: the replicas warn (kubectl prints the Warning headers) and store.
	create := exec.Command(env.bin.kubectl, "create", "-n", ns, "-f", "-")
	create.Env = append(os.Environ(), "KUBECONFIG="+env.kubeconfigs["editor"])
	create.Stdin = strings.NewReader(typeErrorsTemplate)
	var createOut, createErr bytes.Buffer
	create.Stdout, create.Stderr = &createOut, &createErr
	if err := create.Run(); err != nil {
		t.Fatalf("kubectl create: %v: %s", err, createErr.String())
	}
	for _, w := range want {
		_, finding, _ := strings.Cut(w, ": error: ")
		if !strings.Contains(createErr.String(), "Warning: "+finding) {
			t.Errorf("kubectl create: no warning %q in:\n%s", finding, createErr.String())
		}
	}

	// A replica that refuses: its own process, reached directly.
	ports, err := netutil.FreeLoopbackPorts(1)
	if err != nil {
		t.Fatal(err)
	}
	refusing, err := startProcess(env.logDir, "stencil-apiserver-refuse", env.bin.stencilAPIServer,
		append(env.replicaArgs(ports[0]), "--template-type-check=refuse")...)
	if err != nil {
		t.Fatal(err)
	}
	defer refusing.stop()
	ca, err := env.servingCA()
	if err != nil {
		t.Fatal(err)
	}
	at := func(user string) *rest.Config {
		config := env.restConfig(user)
		config.Host, config.CAFile, config.CAData, config.ServerName = "https://127.0.0.1:"+strconv.Itoa(ports[0]), "", ca, serviceDNSName
		return config
	}
	if err := waitFor(2*time.Minute, "the refusing replica ready", func(ctx context.Context) error {
		return env.readyz(ctx, at("admin"), "")
	}, refusing); err != nil {
		t.Fatal(err)
	}
	httpClient, err := rest.HTTPClientFor(at("editor"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(typeErrorsTemplate, "name: type-errors", "name: refused", 1)
	req, err := http.NewRequest(http.MethodPost, at("editor").Host+"/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/templates", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/yaml")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("the refusing replica: %d: %s", resp.StatusCode, raw)
	}
	for _, w := range want {
		_, finding, _ := strings.Cut(w, ": error: ")
		path, message, _ := strings.Cut(finding, ": ")
		if !bytes.Contains(raw, []byte(`"field":"`+path+`"`)) || !bytes.Contains(raw, []byte(jsonText(message))) {
			t.Errorf("the 422 has no cause %s: %s in:\n%s", path, message, raw)
		}
	}
	if out, err := env.kubectl("editor", "", "get", "template", "refused", "-n", ns); err == nil {
		t.Errorf("the refused template was stored: %s", out)
	}
}

// jsonText is s as it appears inside a JSON string, without the quotes.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestKubeSchemasMatchCluster: the schemas stencil lint carries for the core kinds
// (pkg/typecheck/kubeschemas) are those the suite's kube-apiserver serves: every kind it serves
// as a resource in a group Kubernetes itself serves is in the binary, with the same schema as
// far as the type check reads it (the schema and every one it references).
func TestKubeSchemasMatchCluster(t *testing.T) {
	core, err := kubeschemas.Set()
	if err != nil {
		t.Fatal(err)
	}
	client, err := discovery.NewDiscoveryClientForConfig(env.restConfig("admin"))
	if err != nil {
		t.Fatal(err)
	}
	cluster := &typecheck.Cluster{Fetch: typecheck.RESTFetch(client.RESTClient())}
	ctx := context.Background()
	_, lists, err := client.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, list := range lists {
		group, version := typecheck.ParseAPIVersion(list.GroupVersion)
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			gvk := typecheck.GroupVersionKind{Group: group, Version: version, Kind: r.Kind}
			if _, known := core.Versions(group, r.Kind); !known {
				continue // a CRD's or an aggregated API's group, not Kubernetes'
			}
			res, err := cluster.Resolve(ctx, gvk)
			if err != nil || res.Schema == nil {
				t.Errorf("%v: the cluster has no schema of it: %v", gvk, err)
				continue
			}
			if core.Kind(gvk) == nil {
				t.Errorf("%v: the cluster serves it; stencil lint carries no schema of it (run hack/update-kube-schemas.sh)", gvk)
				continue
			}
			if mine, theirs := closure(core, core.Kind(gvk)), closure(res.Set, res.Schema); !bytes.Equal(mine, theirs) {
				t.Errorf("%v: the schema differs from the cluster's (run hack/update-kube-schemas.sh)", gvk)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("only %d kinds compared", checked)
	}
	t.Logf("%d resource kinds of Kubernetes %s compared with the cluster's", checked, kubeschemas.Version)
}

// closure writes schema and every schema it references, by name, as JSON: what the type
// check reads of a kind.
func closure(set *typecheck.Set, schema *typecheck.Schema) []byte {
	named := map[string]*typecheck.Schema{"": schema}
	var visit func(s *typecheck.Schema)
	visit = func(s *typecheck.Schema) {
		if s == nil {
			return
		}
		if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
			if _, seen := named[name]; !seen {
				named[name] = set.Named(name)
				visit(named[name])
			}
		}
		for _, p := range s.Properties {
			visit(p)
		}
		visit(s.Items)
		if s.AdditionalProperties != nil {
			visit(s.AdditionalProperties.Schema)
		}
		for _, list := range [][]*typecheck.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, sub := range list {
				visit(sub)
			}
		}
	}
	visit(schema)
	out, _ := json.Marshal(named)
	return out
}
