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
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestInstall checks what kubectl apply -k artifacts/deploy set up beyond the API itself: the
// server keeps its APIService trusting its certificate, and its ServiceAccount reaches only its
// own Secret and APIService.
func TestInstall(t *testing.T) {
	t.Run("objects", func(t *testing.T) {
		mustKubectl(t, "admin", "", "get", "deployment,poddisruptionbudget,service", "stencil-apiserver", "-n", stencilNamespace)
		mustKubectl(t, "admin", "", "get", "role,rolebinding", "stencil-apiserver-serving-cert", "-n", stencilNamespace)
	})

	t.Run("caBundle kept current", func(t *testing.T) {
		// Someone (an old manifest, a careless patch) writes another CA into the APIService;
		// the replicas put theirs back.
		other, err := os.ReadFile(env.path("kube-ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		patch := fmt.Sprintf(`{"spec":{"caBundle":%q}}`, base64.StdEncoding.EncodeToString(other))
		mustKubectl(t, "admin", "", "patch", "apiservice", apiServiceName, "--type=merge", "-p", patch)
		if err := env.waitAPIServiceTrusted(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("server RBAC", func(t *testing.T) {
		const sa = "system:serviceaccount:" + stencilNamespace + ":stencil-apiserver"
		for _, tc := range []struct {
			args    []string
			allowed bool
		}{
			{[]string{"patch", "apiservices/" + apiServiceName}, true},
			{[]string{"patch", "apiservices/v1.apps"}, false},
			{[]string{"update", "secrets/" + servingCertSecret, "-n", stencilNamespace}, true},
			{[]string{"get", "secrets/other", "-n", stencilNamespace}, false},
			{[]string{"list", "secrets", "-n", stencilNamespace}, false},
			{[]string{"create", "secrets", "-n", "kube-system"}, false},
		} {
			out, _ := env.kubectl("admin", "", append([]string{"auth", "can-i", "--as=" + sa}, tc.args...)...)
			if got := strings.TrimSpace(out) == "yes"; got != tc.allowed {
				t.Errorf("can-i %v: %q, want allowed=%v", tc.args, out, tc.allowed)
			}
		}
	})
}
