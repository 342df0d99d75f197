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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
)

const fluxDBTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: db}
parameters:
- {name: PASSWORD, generate: expression, from: "[a-zA-Z0-9]{24}"}
objects:
- {apiVersion: v1, kind: Secret, metadata: {name: db-creds}, stringData: {password: "${PASSWORD}"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: db-config}, data: {host: db}}
`

// unpackFiles reads a tar.gz into its files' contents.
func unpackFiles(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = string(body)
	}
}

// fetchAnonymously GETs url with no credentials at all, as any pod of the cluster could.
func fetchAnonymously(t *testing.T, url string) (int, []byte) {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// TestFluxPublishedSecrets: a render with a Secret is not published by default; with secrets:
// Apply the controller applies the Secret (and the generated values) as the requester and
// publishes the rest. An unauthenticated reader inside the cluster gets nothing from the
// artifact server but 404s, cannot read the ExternalArtifact that names the URL, and the
// artifact itself, fetched by anyone who has the URL, holds no Secret value. A Template
// rewritten by an author who may not create what it renders publishes nothing.
func TestFluxPublishedSecrets(t *testing.T) {
	needFlux(t)
	const ns = "e2e-flux-secrets"
	fluxTenant(t, ns)
	user := fluxPublisher(t, ns, "publisher")
	mustKubectl(t, user, fluxDBTemplate, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, user, kustomizationYAML(ns, "db", "db"), "apply", "-f", "-")

	mustKubectl(t, user, publishedInstanceYAML("db", "db", "", ""), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "db", time.Minute, "refused: it holds a Secret", func(ti *templatesv1.TemplateInstance) error {
		failed := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
		if failed == nil || failed.Reason != "SecretsNotPublished" || !strings.Contains(failed.Message, "Secret "+ns+"/db-creds") {
			return fmt.Errorf("Failed %+v", failed)
		}
		return nil
	})
	if out, _ := env.kubectl("admin", "", "get", "externalartifacts.source.toolkit.fluxcd.io", "-n", ns, "-o", "name"); out != "" {
		t.Errorf("a refused render published %s", out)
	}

	mustKubectl(t, user, publishedInstanceYAML("db", "db", "", "    externalArtifact: {secrets: Apply}\n"), "apply", "-n", ns, "-f", "-")
	ti := waitInstance(t, ns, "db", 2*time.Minute, "Ready: Secrets applied, the rest published", publishedReady)
	password := generatedPassword(t, ns, "db")
	if got := mustKubectl(t, "admin", "", "get", "secret", "db-creds", "-n", ns, "-o", "jsonpath={.data.password}"); got == "" {
		t.Fatal("db-creds has no password")
	}
	if managers := mustKubectl(t, "admin", "", "get", "secret", "db-creds", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}"); strings.Contains(managers, "kustomize-controller") {
		t.Errorf("Flux applied the Secret (managers %q)", managers)
	}
	if len(ti.Status.Objects) != 1 || ti.Status.Objects[0].Name != "db-creds" {
		t.Errorf("the controller's objects: %+v", ti.Status.Objects)
	}
	if got := getKustomization(t, ns, "db").inventory(); strings.Join(got, " ") != ns+"_db-config__ConfigMap" {
		t.Errorf("Flux applied %v", got)
	}

	// Whoever has the URL gets an artifact without a Secret value in it.
	url := mustKubectl(t, "admin", "", "get", "externalartifacts.source.toolkit.fluxcd.io", "db", "-n", ns, "-o", "jsonpath={.status.artifact.url}")
	code, body := fetchAnonymously(t, url)
	if code != http.StatusOK || artifact.Digest(body) != ti.Status.Artifact.Digest {
		t.Fatalf("GET %s: %d, digest %s, want %s", url, code, artifact.Digest(body), ti.Status.Artifact.Digest)
	}
	for name, content := range unpackFiles(t, body) {
		if strings.Contains(content, password) || strings.Contains(content, "kind: Secret") {
			t.Errorf("%s of the artifact holds a Secret:\n%s", name, content)
		}
	}

	// An unauthenticated reader of the cluster: no API object names the URL to it, and the
	// artifact server answers it nothing but the 404 of a missing artifact.
	for _, path := range []string{"/apis/source.toolkit.fluxcd.io/v1/namespaces/" + ns + "/externalartifacts/db",
		"/api/v1/namespaces/" + ns + "/configmaps/db-artifact", "/apis/templates.stencil.dev/v1alpha1/namespaces/" + ns + "/templateinstances/db"} {
		if code, body := fetchAnonymously(t, env.kubeURL+path); code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("anonymous GET %s: %d %s", path, code, body)
		}
	}
	hex := strings.TrimPrefix(ti.Status.Artifact.Digest, "sha256:")
	guessed, err := artifact.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	token := strings.Split(strings.TrimPrefix(url, env.artifactURL+"/"), "/")[3]
	for _, path := range []string{
		artifact.URLPath(ns, "db", guessed, ti.Status.Artifact.Digest),
		"/" + artifact.Path(ns, "db", ti.Status.Artifact.Digest),
		"/templateinstance/" + ns + "/db/" + hex + ".tar.gz",
		"/templateinstance/" + ns + "/db/" + token + "/../" + token + "/" + hex + ".tar.gz",
		"/templateinstance/" + ns + "/db/" + token + "/%2e%2e/" + hex + ".tar.gz",
		"/templateinstance/" + ns + "/db-generated/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/" + ns + "/db/" + token + "/" + hex + ".tar.gz?x=../../etc/passwd",
		"/../../../etc/passwd",
	} {
		if code, body := fetchAnonymously(t, env.artifactURL+path); code != http.StatusNotFound {
			t.Errorf("anonymous GET %s: %d %q", path, code, body)
		}
	}
	// The namespace's viewers, who may not read Secrets, may read the ExternalArtifact (Flux
	// aggregates its kinds into view) and so the URL: what they fetch holds no Secret either.
	mustKubectl(t, "admin", fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: flux-view, namespace: %[1]s}
rules: [{apiGroups: [source.toolkit.fluxcd.io], resources: ["*"], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewer-flux-view, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: flux-view}
subjects: [{kind: User, name: viewer}]
`, ns), "apply", "-f", "-")
	mustKubectl(t, "admin", "", "create", "rolebinding", "viewer-view", "-n", ns, "--clusterrole=system:aggregate-to-view", "--user=viewer")
	if out, err := env.kubectl("viewer", "", "get", "secret", "db-creds", "-n", ns); err == nil {
		t.Fatalf("the viewer reads Secrets: %s", out)
	}
	viewed := mustKubectl(t, "viewer", "", "get", "externalartifacts.source.toolkit.fluxcd.io", "db", "-n", ns, "-o", "jsonpath={.status.artifact.url}")
	if code, body := fetchAnonymously(t, viewed); code != http.StatusOK || strings.Contains(string(body), password) {
		t.Errorf("the viewer's fetch: %d", code)
	} else {
		for name, content := range unpackFiles(t, body) {
			if strings.Contains(content, password) {
				t.Errorf("%s of what the viewer fetched holds the password", name)
			}
		}
	}

	// An author who may read what the instance reads (its generated values) but may not create
	// what the Template renders: nothing more is published.
	writer := fluxTemplateWriter(t, ns, "writer")
	mustKubectl(t, "admin", "", "create", "role", "secret-reader", "-n", ns, "--verb=get", "--resource=secrets")
	mustKubectl(t, "admin", "", "create", "rolebinding", "writer-secret-reader", "-n", ns, "--role=secret-reader", "--serviceaccount="+ns+":writer")
	before := ti.Status.Artifact.Revision
	mustKubectl(t, writer, strings.Replace(fluxDBTemplate, "host: db", "host: db.example", 1), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "db", time.Minute, "refused: the author may not create it", func(ti *templatesv1.TemplateInstance) error {
		failed := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
		if failed == nil || failed.Status != metav1.ConditionTrue || failed.Reason != "AuthorForbidden" {
			return fmt.Errorf("Failed %+v", failed)
		}
		return nil
	})
	if got := mustKubectl(t, "admin", "", "get", "externalartifacts.source.toolkit.fluxcd.io", "db", "-n", ns, "-o", "jsonpath={.status.artifact.revision}"); got != before {
		t.Errorf("the ExternalArtifact names %s after a refused render, was %s", got, before)
	}
	if got := mustKubectl(t, "admin", "", "get", "configmap", "db-config", "-n", ns, "-o", "jsonpath={.data.host}"); got != "db" {
		t.Errorf("db-config holds %q", got)
	}
}

// fluxTemplateWriter is a ServiceAccount of ns that may write Templates and nothing else there.
func fluxTemplateWriter(t *testing.T, ns, name string) string {
	t.Helper()
	mustKubectl(t, "admin", "", "create", "serviceaccount", name, "-n", ns)
	mustKubectl(t, "admin", "", "create", "rolebinding", name+"-stencil-edit", "-n", ns, "--clusterrole=stencil-edit", "--serviceaccount="+ns+":"+name)
	mustKubectl(t, "admin", "", "create", "rolebinding", name+"-stencil-view", "-n", ns, "--clusterrole=stencil-view", "--serviceaccount="+ns+":"+name)
	token := mustKubectl(t, "admin", "", "create", "token", name, "-n", ns, "--duration=24h")
	user := ns + "-" + name
	if err := env.writeKubeconfig(user, &clientcmdapi.AuthInfo{Token: strings.TrimSpace(token)}); err != nil {
		t.Fatal(err)
	}
	return user
}
