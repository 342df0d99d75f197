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
