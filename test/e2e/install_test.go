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
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
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

	t.Run("controller metrics", func(t *testing.T) {
		config, err := env.replicaConfig(0)
		if err != nil {
			t.Fatal(err)
		}
		client, err := rest.HTTPClientFor(config)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(config.Host + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
		}
		var expiry float64
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "stencil_serving_certificate_expiration_timestamp_seconds "); ok {
				expiry, _ = strconv.ParseFloat(v, 64)
			}
		}
		if now := float64(time.Now().Unix()); expiry < now+30*24*3600 {
			t.Errorf("the certificate's expiry is %v, not months after now (%v)", expiry, now)
		}
		if !strings.Contains(string(body), `workqueue_adds_total{name="stencil_serving_cert"}`) {
			t.Error("no workqueue series of the certificate controller")
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
