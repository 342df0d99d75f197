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

package server

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"testing"

	certutil "k8s.io/client-go/util/cert"
)

// TestTrustAnchorsHoldOnlyTheCA checks what the local kubeconfig trusts: of the self-signed
// chain the generic server writes (the serving certificate, then its CA), only the CA, and
// that CA verifies the serving certificate. On 3731d16 both went into
// certificate-authority-data, which Ruby's kubeclient refuses.
func TestTrustAnchorsHoldOnlyTheCA(t *testing.T) {
	chain, _, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := certificates(t, chain)
	if len(all) != 2 || all[0].IsCA || !all[1].IsCA {
		t.Fatalf("the generic server's chain changed shape: %d certificates", len(all))
	}
	anchors, err := trustAnchors(chain)
	if err != nil {
		t.Fatal(err)
	}
	got := certificates(t, anchors)
	if len(got) != 1 || !got[0].IsCA || !got[0].Equal(all[1]) {
		t.Fatalf("trusted %d certificates, want the CA alone", len(got))
	}
	roots := x509.NewCertPool()
	roots.AddCert(got[0])
	if _, err := all[0].Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err != nil {
		t.Errorf("the CA does not verify the serving certificate: %v", err)
	}

	// A self-signed leaf alone (given with --tls-cert-file) is its own trust anchor.
	leaf := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: all[0].Raw})
	if kept, err := trustAnchors(leaf); err != nil || string(kept) != string(leaf) {
		t.Errorf("a chain without a CA: %v, kept %d bytes of %d", err, len(kept), len(leaf))
	}
	if _, err := trustAnchors([]byte("no PEM here")); err == nil {
		t.Error("a file without a certificate should be an error")
	}
}

func certificates(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	certs, err := certutil.ParseCertsPEM(data)
	if err != nil {
		t.Fatal(err)
	}
	return certs
}
