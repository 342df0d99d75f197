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
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/artifact"
)

// kustomization is the part of a Flux Kustomization the tests read.
type kustomization struct {
	Metadata struct {
		Generation int64 `json:"generation"`
	} `json:"metadata"`
	Status struct {
		ObservedGeneration    int64              `json:"observedGeneration"`
		LastAppliedRevision   string             `json:"lastAppliedRevision"`
		LastAttemptedRevision string             `json:"lastAttemptedRevision"`
		Conditions            []metav1.Condition `json:"conditions"`
		Inventory             *struct {
			Entries []struct {
				ID string `json:"id"`
				V  string `json:"v"`
			} `json:"entries"`
		} `json:"inventory"`
	} `json:"status"`
}

func (k *kustomization) ready() *metav1.Condition {
	for i := range k.Status.Conditions {
		if k.Status.Conditions[i].Type == "Ready" {
			return &k.Status.Conditions[i]
		}
	}
	return nil
}

// inventory is the Kustomization's inventory as "<namespace>_<name>_<group>_<kind>" ids, sorted.
func (k *kustomization) inventory() []string {
	var ids []string
	if k.Status.Inventory != nil {
		for _, e := range k.Status.Inventory.Entries {
			ids = append(ids, e.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

func getKustomization(t testing.TB, ns, name string) *kustomization {
	t.Helper()
	out, err := env.kubectl("admin", "", "get", "kustomizations.kustomize.toolkit.fluxcd.io", name, "-n", ns, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	if err := json.Unmarshal([]byte(out), &k); err != nil {
		t.Fatal(err)
	}
	return &k
}

// waitKustomization polls the Kustomization until check holds.
func waitKustomization(t testing.TB, ns, name string, timeout time.Duration, what string, check func(*kustomization) error) *kustomization {
	t.Helper()
	var last *kustomization
	err := waitFor(timeout, what, func(context.Context) error {
		last = getKustomization(t, ns, name)
		return check(last)
	}, fluxProc)
	if err != nil {
		t.Fatalf("%v\nKustomization %s/%s: %+v", err, ns, name, last)
	}
	return last
}

// appliedRevision holds when the Kustomization reports revision applied and Ready.
func appliedRevision(revision string) func(*kustomization) error {
	return func(k *kustomization) error {
		ready := k.ready()
		if k.Status.LastAppliedRevision != revision || ready == nil || ready.Status != metav1.ConditionTrue {
			return fmt.Errorf("applied %q (want %q), Ready %+v", k.Status.LastAppliedRevision, revision, ready)
		}
		return nil
	}
}

// fluxTenant makes a namespace with the ServiceAccount its Kustomizations apply as, which may
// edit there.
func fluxTenant(t testing.TB, ns string) {
	t.Helper()
	mustKubectlTB(t, "admin", fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: flux-applier, namespace: %[1]s}
`, ns), "apply", "-f", "-")
	// What edit aggregates, bound role by role: the suite runs no aggregation controller.
	for _, role := range []string{"system:aggregate-to-edit", "system:aggregate-to-view"} {
		mustKubectlTB(t, "admin", "", "create", "rolebinding", "flux-applier-"+strings.ReplaceAll(role, ":", "-"), "-n", ns,
			"--clusterrole="+role, "--serviceaccount="+ns+":flux-applier")
	}
}

// kustomizationYAML applies ExternalArtifact source as the tenant's flux-applier, pruning
// what the artifact no longer holds and waiting for what it applied to be ready.
func kustomizationYAML(ns, name, source string) string {
	return fmt.Sprintf(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: %s}
spec:
  interval: 10m
  retryInterval: 2s
  timeout: 1m
  sourceRef: {kind: ExternalArtifact, name: %s}
  path: ./
  prune: true
  wait: true
  serviceAccountName: flux-applier
`, name, ns, source)
}

// artifactFiles serves fixed bytes at fixed paths, as a stand-in producer of artifacts.
type artifactFiles struct {
	mu    sync.Mutex
	files map[string][]byte
	url   string
	srv   *http.Server
}

func serveArtifactFiles(t testing.TB) *artifactFiles {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &artifactFiles{files: map[string][]byte{}, url: "http://" + l.Addr().String()}
	f.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		data, ok := f.files[r.URL.Path]
		f.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	})}
	go func() { _ = f.srv.Serve(l) }()
	t.Cleanup(func() { _ = f.srv.Close() })
	return f
}

func (f *artifactFiles) put(path string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = data
}

// setExternalArtifact writes an ExternalArtifact and, as a producer does, its status.
func setExternalArtifact(t testing.TB, ns, name, url, revision, digest string, size int) {
	t.Helper()
	mustKubectlTB(t, "admin", fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: ExternalArtifact
metadata: {name: %s, namespace: %s}
spec:
  sourceRef: {apiVersion: v1, kind: ConfigMap, name: producer}
`, name, ns), "apply", "-f", "-")
	status, err := json.Marshal(map[string]any{"status": map[string]any{
		"artifact": map[string]any{"digest": digest, "revision": revision, "url": url, "size": size,
			"path": "test/" + name + ".tar.gz", "lastUpdateTime": time.Now().UTC().Format(time.RFC3339)},
		"conditions": []map[string]any{{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "stored " + revision,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": 1}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	mustKubectlTB(t, "admin", "", "patch", "externalartifacts.source.toolkit.fluxcd.io", name, "-n", ns,
		"--subresource=status", "--type=merge", "-p", string(status))
}

func configMapObjects(ns string, values map[string]string) []artifact.Object {
	var out []artifact.Object
	for name, v := range values {
		out = append(out, artifact.Object{Kind: "ConfigMap", Namespace: ns, Name: name,
			JSON: fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q},"data":{"value":%q}}`, name, ns, v)})
	}
	return out
}

// TestFluxAppliesStencilArtifacts checks the artifact format against Flux's own controller: a
// tarball packed by pkg/artifact, named by its digest, is fetched, verified and applied by
// kustomize-controller v1.9.6 through an ExternalArtifact; the same URL serving other bytes is
// refused for their digest, and nothing changes.
func TestFluxAppliesStencilArtifacts(t *testing.T) {
	needFlux(t)
	const ns = "e2e-flux-format"
	fluxTenant(t, ns)
	files := serveArtifactFiles(t)

	first, err := artifact.Build(configMapObjects(ns, map[string]string{"alpha": "1", "beta": "2"}), artifact.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	files.put("/first.tar.gz", first.Archive)
	rev1 := artifact.Revision("g1", first.Digest)
	setExternalArtifact(t, ns, "format", files.url+"/first.tar.gz", rev1, first.Digest, len(first.Archive))
	mustKubectl(t, "admin", kustomizationYAML(ns, "format", "format"), "apply", "-f", "-")
	k := waitKustomization(t, ns, "format", 2*time.Minute, "the first artifact applied", appliedRevision(rev1))
	want := []string{ns + "_alpha__ConfigMap", ns + "_beta__ConfigMap"}
	if got := k.inventory(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("inventory %v, want %v", got, want)
	}
	if v := mustKubectl(t, "admin", "", "get", "configmap", "alpha", "-n", ns, "-o", "jsonpath={.data.value}"); v != "1" {
		t.Errorf("alpha holds %q", v)
	}

	// Tampered: the producer names the digest of one tarball and the server hands out another.
	second, err := artifact.Build(configMapObjects(ns, map[string]string{"alpha": "changed", "beta": "2"}), artifact.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	tampered := append([]byte(nil), second.Archive...)
	tampered[len(tampered)-12] ^= 0x01 // inside the gzip trailer: still the same length
	files.put("/second.tar.gz", tampered)
	rev2 := artifact.Revision("g2", second.Digest)
	setExternalArtifact(t, ns, "format", files.url+"/second.tar.gz", rev2, second.Digest, len(second.Archive))
	k = waitKustomization(t, ns, "format", 2*time.Minute, "the tampered artifact refused", func(k *kustomization) error {
		ready := k.ready()
		if ready == nil || ready.Status != metav1.ConditionFalse || !strings.Contains(ready.Message, "digest") {
			return fmt.Errorf("Ready %+v", ready)
		}
		return nil
	})
	t.Logf("refused: %s: %s", k.ready().Reason, k.ready().Message)
	if k.Status.LastAppliedRevision != rev1 {
		t.Errorf("last applied %q after a tampered artifact, want %q", k.Status.LastAppliedRevision, rev1)
	}
	if v := mustKubectl(t, "admin", "", "get", "configmap", "alpha", "-n", ns, "-o", "jsonpath={.data.value}"); v != "1" {
		t.Errorf("alpha holds %q after a tampered artifact", v)
	}

	// The genuine bytes at that URL are applied.
	files.put("/second.tar.gz", second.Archive)
	mustKubectl(t, "admin", "", "annotate", "--overwrite", "kustomizations.kustomize.toolkit.fluxcd.io", "format", "-n", ns,
		"reconcile.fluxcd.io/requestedAt="+time.Now().Format(time.RFC3339Nano))
	waitKustomization(t, ns, "format", 2*time.Minute, "the second artifact applied", appliedRevision(rev2))
	if v := mustKubectl(t, "admin", "", "get", "configmap", "alpha", "-n", ns, "-o", "jsonpath={.data.value}"); v != "changed" {
		t.Errorf("alpha holds %q", v)
	}
}
