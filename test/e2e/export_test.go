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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	exportNamespace = "e2e-export-a"
	copyNamespace   = "e2e-export-b"
	secretValue     = "hunter2-e2e"
)

// exportSetup is what the admin prepares: the namespaces, the Widget CRD, a Role that lets the
// exporter run an application in both namespaces and one that lets nosecrets read everything
// but Secrets in the first, and what every namespace gets from controllers this cluster does
// not run (the default ServiceAccount, kube-root-ca.crt).
const exportSetup = `
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: e2e-export-a}}
- {apiVersion: v1, kind: Namespace, metadata: {name: e2e-export-b}}
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: widgets.e2e.stencil.dev}
  spec:
    group: e2e.stencil.dev
    scope: Namespaced
    names: {plural: widgets, singular: widget, kind: Widget}
    versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
- {apiVersion: v1, kind: ServiceAccount, metadata: {name: default, namespace: e2e-export-a}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: kube-root-ca.crt, namespace: e2e-export-a}, data: {ca.crt: "not a real CA"}}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: e2e-export-app-admin}
  rules:
  - {apiGroups: ["*"], resources: ["*"], verbs: ["*"]}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: e2e-export-reader-no-secrets}
  rules:
  - {apiGroups: [""], resources: [configmaps, services, serviceaccounts, persistentvolumeclaims], verbs: [get, list]}
  - {apiGroups: [apps, batch, rbac.authorization.k8s.io, networking.k8s.io, autoscaling, policy, e2e.stencil.dev], resources: ["*"], verbs: [get, list]}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata: {name: exporter, namespace: e2e-export-a}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: e2e-export-app-admin}
  subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: exporter}]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata: {name: exporter, namespace: e2e-export-b}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: e2e-export-app-admin}
  subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: exporter}]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata: {name: nosecrets, namespace: e2e-export-a}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: e2e-export-reader-no-secrets}
  subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: nosecrets}]
`

// exportApp is the application the exporter runs; the Secret is applied on its own, so that
// kubectl's last-applied annotation repeats its value.
const exportApp = `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ServiceAccount
  metadata: {name: shop, labels: {app: shop}}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: shop-config, labels: {app: shop}}
  data: {start.sh: "exec server --home ${HOME} --name $(POD_NAME)"}
- apiVersion: v1
  kind: Service
  metadata: {name: shop, labels: {app: shop}}
  spec:
    selector: {app: shop}
    ports: [{name: http, port: 80, targetPort: 8080}]
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: shop, labels: {app: shop}}
  spec:
    replicas: 2
    selector: {matchLabels: {app: shop}}
    template:
      metadata: {labels: {app: shop}}
      spec:
        serviceAccountName: shop
        containers:
        - name: web
          image: registry.example.com/shop:1.4
          ports: [{containerPort: 8080}]
          env:
          - {name: PASSWORD, valueFrom: {secretKeyRef: {name: shop-db, key: password}}}
          - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
          - {name: BACKEND, value: shop}
          envFrom: [{configMapRef: {name: shop-config}}]
          readinessProbe: {httpGet: {path: /healthz, port: 8080}}
          volumeMounts: [{name: config, mountPath: /etc/shop}]
        volumes: [{name: config, configMap: {name: shop-config}}]
- apiVersion: e2e.stencil.dev/v1
  kind: Widget
  metadata: {name: shop-cache, labels: {app: shop}}
  spec: {replicas: 2, color: blue}
`

const exportSecret = `
apiVersion: v1
kind: Secret
metadata: {name: shop-db, labels: {app: shop}}
stringData: {password: ` + secretValue + `}
`

// appKinds are the kinds of the application, the custom one included.
const appKinds = "deployments,services,configmaps,secrets,serviceaccounts,widgets"

// TestExport exports an application run by a non-admin user, checks that the template holds
// nothing of the cluster and no Secret value, re-applies it with a server-side dry run to find
// the same objects, stores it, processes it into another namespace under another name and
// compares, and exports as a user who may not list Secrets.
func TestExport(t *testing.T) {
	mustKubectl(t, "admin", exportSetup, "apply", "-f", "-")
	mustKubectl(t, "admin", "", "wait", "--for=condition=Established", "crd/widgets.e2e.stencil.dev", "--timeout=60s")
	mustKubectl(t, "exporter", exportApp, "create", "-n", exportNamespace, "-f", "-")
	mustKubectl(t, "exporter", exportSecret, "apply", "-n", exportNamespace, "-f", "-")

	t.Run("default kinds", func(t *testing.T) {
		out, stderr := mustStencil(t, "exporter", "export", "-n", exportNamespace, "--name", "shop")
		for _, kind := range []string{"kind: Deployment", "kind: Service", "kind: ConfigMap", "kind: Secret", "kind: ServiceAccount"} {
			if !strings.Contains(out, kind) {
				t.Errorf("no %s in the template:\n%s", kind, out)
			}
		}
		for _, skipped := range []string{"ServiceAccount default", "ConfigMap kube-root-ca.crt"} {
			if !strings.Contains(stderr, "skipped v1 "+skipped) {
				t.Errorf("%s not reported as skipped: %s", skipped, stderr)
			}
		}
	})

	out, _ := mustStencil(t, "exporter", "export", appKinds, "-n", exportNamespace, "--name", "shop", "-o", "json")
	var template struct {
		Parameters []struct {
			Name, DisplayName, Description, Value string
			Required, Secret                      bool
		} `json:"parameters"`
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal([]byte(out), &template); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Run("nothing of the cluster and no Secret value", func(t *testing.T) {
		leaks := []string{secretValue, base64.StdEncoding.EncodeToString([]byte(secretValue)), `"uid"`, "resourceVersion",
			"creationTimestamp", "managedFields", `"status"`, "clusterIP", "last-applied-configuration", exportNamespace,
			"terminationMessagePath", "dnsPolicy", "schedulerName", "revisionHistoryLimit", `"generation"`}
		for _, leak := range leaks {
			if strings.Contains(out, leak) {
				t.Errorf("%q in the template:\n%s", leak, out)
			}
		}
		var names []string
		for _, p := range template.Parameters {
			names = append(names, p.Name)
			if p.DisplayName == "" || p.Description == "" {
				t.Errorf("parameter %s without display name or description", p.Name)
			}
		}
		if got := strings.Join(names, ","); got != "NAME,WEB_IMAGE,REPLICAS,CACHE_REPLICAS,DB_PASSWORD" {
			t.Errorf("parameters %s", got)
		}
	})

	templateFile := filepath.Join(t.TempDir(), "shop.json")
	if err := os.WriteFile(templateFile, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("server-side dry run of the template reproduces the live objects", func(t *testing.T) {
		list, _ := mustStencil(t, "exporter", "process", "--local", "-f", templateFile, "-p", "DB_PASSWORD="+secretValue, "-o", "json")
		var processed struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal([]byte(list), &processed); err != nil {
			t.Fatal(err)
		}
		if len(processed.Items) != 6 {
			t.Fatalf("%d objects processed, want 6", len(processed.Items))
		}
		for _, item := range processed.Items {
			raw, _ := json.Marshal(item)
			kind, name := item["kind"].(string), item["metadata"].(map[string]any)["name"].(string)
			replaced := liveObject(t, mustKubectl(t, "exporter", string(raw), "replace", "--dry-run=server", "-n", exportNamespace, "-o", "json", "-f", "-"))
			live := liveObject(t, mustKubectl(t, "exporter", "", "get", strings.ToLower(kind), name, "-n", exportNamespace, "-o", "json"))
			if !reflect.DeepEqual(replaced, live) {
				a, _ := json.Marshal(replaced)
				b, _ := json.Marshal(live)
				t.Errorf("%s %s re-applied differs from the live object:\nre-applied %s\nlive       %s", kind, name, a, b)
			}
		}
	})

	t.Run("OpenShift's form processes into the same objects", func(t *testing.T) {
		theirs, stderr := mustStencil(t, "exporter", "export", appKinds, "-n", exportNamespace, "--name", "shop", "-o", "openshift")
		if !strings.Contains(theirs, "apiVersion: template.openshift.io/v1") {
			t.Fatalf("not an OpenShift Template:\n%s", theirs)
		}
		if !strings.Contains(stderr, "warning: v1 ConfigMap shop-config holds text") {
			t.Errorf("no warning about the escaped ConfigMap: %s", stderr)
		}
		theirsFile := filepath.Join(t.TempDir(), "shop-openshift.yaml")
		if err := os.WriteFile(theirsFile, []byte(theirs), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"process", "--local", "-p", "NAME=other", "-p", "DB_PASSWORD=" + secretValue, "-o", "json", "-f"}
		fromOurs, _ := mustStencil(t, "exporter", append(args, templateFile)...)
		fromTheirs, _ := mustStencil(t, "exporter", append(args, theirsFile)...)
		if fromOurs != fromTheirs {
			t.Errorf("OpenShift's form processes into\n%s\nours into\n%s", fromTheirs, fromOurs)
		}
	})

	t.Run("round trip: stored, processed with another NAME into another namespace", func(t *testing.T) {
		created, _ := mustStencil(t, "exporter", "export", appKinds, "-n", exportNamespace, "--name", "shop", "--create")
		if !strings.Contains(created, "shop created") {
			t.Fatalf("--create: %s", created)
		}
		processed, _ := mustStencil(t, "exporter", "process", "shop", "-n", exportNamespace, "-p", "NAME=copy", "-p", "DB_PASSWORD="+secretValue)
		mustKubectl(t, "exporter", processed, "apply", "-n", copyNamespace, "-f", "-")

		// Both namespaces exported the same way, literally: the objects of the copy are the
		// objects of the original under the new name and namespace.
		original := exportedObjects(t, exportNamespace)
		copied := exportedObjects(t, copyNamespace)
		renamed := strings.NewReplacer(`"shop`, `"copy`, `"`+exportNamespace+`"`, `"`+copyNamespace+`"`).Replace(original)
		if renamed != copied {
			t.Errorf("the copy differs from the original renamed:\nrenamed original %s\ncopy             %s", renamed, copied)
		}
	})

	t.Run("a user who may not list Secrets gets the rest and a warning", func(t *testing.T) {
		out, stderr := mustStencil(t, "nosecrets", "export", "-n", exportNamespace, "--name", "shop")
		if !strings.Contains(stderr, "warning: you may not list secrets in namespace "+exportNamespace) {
			t.Errorf("no warning naming Secrets: %s", stderr)
		}
		if strings.Contains(out, "kind: Secret") || !strings.Contains(out, "kind: Deployment") {
			t.Errorf("want every object but the Secret:\n%s", out)
		}
		// Objects by name: the same for a get.
		out, stderr = mustStencil(t, "nosecrets", "export", "deployment/shop", "secret/shop-db", "cm/shop-config", "-n", exportNamespace, "--name", "shop")
		if !strings.Contains(stderr, "warning: you may not get secrets/shop-db in namespace "+exportNamespace) {
			t.Errorf("no warning naming the Secret: %s", stderr)
		}
		if strings.Count(out, "- apiVersion:") != 2 || !strings.Contains(out, "kind: ConfigMap") || !strings.Contains(out, "kind: Deployment") {
			t.Errorf("want the Deployment and the ConfigMap:\n%s", out)
		}
	})

	t.Run("owned objects are skipped and reported", func(t *testing.T) {
		uid := mustKubectl(t, "exporter", "", "get", "deployment", "shop", "-n", exportNamespace, "-o", "jsonpath={.metadata.uid}")
		mustKubectl(t, "exporter", fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"shop-5d4f","labels":{"app":"shop"},
			"ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"shop","uid":%q,"controller":true}]},
			"spec":{"selector":{"matchLabels":{"app":"shop"}},"template":{"metadata":{"labels":{"app":"shop"}},"spec":{"containers":[{"name":"web","image":"x"}]}}}}`, uid),
			"create", "-n", exportNamespace, "-f", "-")
		out, stderr := mustStencil(t, "exporter", "export", "deployments,replicasets", "-n", exportNamespace, "--name", "shop")
		if !strings.Contains(stderr, "skipped apps/v1 ReplicaSet shop-5d4f: owned by Deployment shop") || strings.Contains(out, "ReplicaSet") {
			t.Errorf("the ReplicaSet is not skipped and reported: %s\n%s", stderr, out)
		}
	})
}

// exportedObjects returns the objects of the application in namespace, exported literally
// with their Secret values, as JSON.
func exportedObjects(t *testing.T, namespace string) string {
	t.Helper()
	out, _ := mustStencil(t, "exporter", "export", appKinds, "-n", namespace, "--name", "compare",
		"--no-parameterize", "--include-secret-values", "-o", "json")
	var template struct {
		Objects json.RawMessage `json:"objects"`
	}
	if err := json.Unmarshal([]byte(out), &template); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, template.Objects); err != nil {
		t.Fatal(err)
	}
	return compact.String()
}

// liveObject decodes an object without what changes on every write (resourceVersion, the
// managers) and without the last-applied annotation, which the export leaves out on purpose.
func liveObject(t *testing.T, out string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	meta := obj["metadata"].(map[string]any)
	delete(meta, "resourceVersion")
	delete(meta, "managedFields")
	if annotations, ok := meta["annotations"].(map[string]any); ok {
		delete(annotations, "kubectl.kubernetes.io/last-applied-configuration")
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
	return obj
}
