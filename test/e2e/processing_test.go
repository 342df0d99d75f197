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

// TestProcessAndApply processes through both endpoints with kubectl create --raw, pipes each
// List into kubectl apply -f - and finds the objects in kube-apiserver.
func TestProcessAndApply(t *testing.T) {
	ns := "e2e-process"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))

	params := filepath.Join(t.TempDir(), "params.json")
	if err := os.WriteFile(params, []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"TemplateParameters","parameters":{"NAME":"cache"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	list := mustKubectl(t, "admin", "", "create", "--raw", "/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/templates/redis/processed", "-f", params)
	if !strings.Contains(list, `"kind":"List"`) {
		t.Fatalf("not a List: %.300s", list)
	}
	mustKubectl(t, "admin", list, "apply", "-n", ns, "-f", "-")
	for _, obj := range []string{"secret/cache", "service/cache", "deployment/cache"} {
		mustKubectl(t, "admin", "", "get", "-n", ns, obj)
	}

	mysql := filepath.Join(repoRoot, "pkg", "process", "testdata", "mysql-persistent.json")
	list = mustKubectl(t, "admin", "", "create", "--raw", "/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/processedtemplates", "-f", mysql)
	mustKubectl(t, "admin", list, "apply", "-n", ns, "-f", "-")
	for _, obj := range []string{"secret/mysql", "service/mysql", "persistentvolumeclaim/mysql", "deployment/mysql"} {
		mustKubectl(t, "admin", "", "get", "-n", ns, obj)
	}
}

// TestKubectlPlugin runs stencil as the kubectl plugin kubectl-stencil, found on PATH by the
// real kubectl, and pipes its List into kubectl apply.
func TestKubectlPlugin(t *testing.T) {
	ns := "e2e-plugin"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "-n", ns, "-f", filepath.Join(repoRoot, "artifacts", "examples", "redis.yaml"))
	list := mustKubectl(t, "admin", "", "stencil", "process", "redis", "-n", ns, "-p", "NAME=plugged")
	if !strings.Contains(list, "kind: List") {
		t.Fatalf("kubectl stencil process printed:\n%s", list)
	}
	mustKubectl(t, "admin", list, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", "", "get", "-n", ns, "deployment/plugged", "service/plugged", "secret/plugged")

	// The processor may process but not read: the plugin works for them too.
	mustKubectl(t, "admin", "", "create", "rolebinding", "processor-process", "-n", ns, "--clusterrole=stencil-process", "--user=processor")
	if out, err := env.kubectl("processor", "", "stencil", "process", "redis", "-n", ns, "-p", "NAME=other"); err != nil || !strings.Contains(out, "name: other") {
		t.Fatalf("processor through the plugin: %v\n%s", err, out)
	}
}

// TestCustomTransformInCluster stores a CustomTransform through the aggregator; the replicas
// bind it by resource through kube-apiserver's discovery and apply it when processing.
func TestCustomTransformInCluster(t *testing.T) {
	ns := "e2e-customtransform"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", `apiVersion: templates.stencil.dev/v1alpha1
kind: CustomTransform
metadata: {name: e2e-strip-pvc-class}
spec:
  resource: persistentvolumeclaims
  remove: ["$.spec.storageClassName"]
`, "apply", "-f", "-")
	defer env.kubectl("admin", "", "delete", "customtransform", "e2e-strip-pvc-class")
	out := mustKubectl(t, "admin", "", "get", "customtransforms")
	if !strings.Contains(out, "e2e-strip-pvc-class") || !strings.Contains(out, "persistentvolumeclaims") {
		t.Fatalf("get customtransforms:\n%s", out)
	}
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"pvc"},
	  "objects":[{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},
	    "spec":{"storageClassName":"fast","accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}`
	file := filepath.Join(t.TempDir(), "pvc.json")
	if err := os.WriteFile(file, []byte(template), 0o600); err != nil {
		t.Fatal(err)
	}
	list := mustKubectl(t, "admin", "", "create", "--raw", "/apis/templates.stencil.dev/v1alpha1/namespaces/"+ns+"/processedtemplates", "-f", file)
	if strings.Contains(list, "storageClassName") || !strings.Contains(list, "ReadWriteOnce") {
		t.Fatalf("the CustomTransform was not applied: %s", list)
	}
}
