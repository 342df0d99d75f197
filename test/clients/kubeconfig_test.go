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

package clients

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
)

// TestRubyKubeclientReadsTheLocalKubeconfig connects with Ruby's kubeclient (Debian's
// ruby-kubeclient), which trusts exactly the certificates of certificate-authority-data
// through OpenSSL, and creates, lists and deletes a Template. On 3731d16 the kubeconfig held
// the serving certificate before the CA and kubeclient failed with "self-signed certificate in
// certificate chain".
func TestRubyKubeclientReadsTheLocalKubeconfig(t *testing.T) {
	config, err := clientcmd.LoadFromFile(server.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	for name, cluster := range config.Clusters {
		certs, err := certutil.ParseCertsPEM(cluster.CertificateAuthorityData)
		if err != nil {
			t.Fatal(err)
		}
		if len(certs) != 1 || !certs[0].IsCA {
			t.Errorf("cluster %s trusts %d certificates; want its CA alone", name, len(certs))
		}
	}
	ruby := tool(t, "/usr/bin/ruby")
	out := run(t, nil, ruby, "testdata/kubeclient.rb", server.Kubeconfig(), "default")
	if !strings.Contains(out, "ok: deleted the Template") {
		t.Fatalf("the script stopped early:\n%s", out)
	}
	t.Logf("%s", out)
}

// TestNodeClient runs node/client.js with Kubernetes' JavaScript client
// (@kubernetes/client-node): the local kubeconfig, Templates, TemplateInstances and
// CustomTransforms found by kind in discovery (KubernetesObjectApi) and processing through
// CustomObjectsApi, with a bound written as a number.
func TestNodeClient(t *testing.T) {
	out := node(t, "client.js", server.Kubeconfig(), "default")
	if !strings.Contains(out, "ok: delete Template") {
		t.Fatalf("the script stopped early:\n%s", out)
	}
	t.Logf("%s", out)
}
