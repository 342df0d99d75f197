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

// Package servingcert gives the replicas of stencil-apiserver in a cluster a serving
// certificate that works without any other tool: the first replica creates a CA and a
// certificate naming the Service in a Secret of its namespace, every replica serves that
// certificate, and a small controller renews it before it expires and keeps the APIService's
// caBundle equal to the CA, so the aggregator trusts whichever replica it reaches.
package servingcert

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	certutil "k8s.io/client-go/util/cert"

	"stencil.dev/stencil/pkg/certs"
)

const (
	// Validity is how long a serving certificate is valid.
	Validity = 365 * 24 * time.Hour
	// RenewBefore is how long before its end a certificate is replaced, as cert-manager does at
	// two thirds of the lifetime: time enough for every replica to pick up the new one.
	RenewBefore = Validity / 3
	// CAKey is the Secret key of the CA bundle, cert-manager's name for it.
	CAKey = "ca.crt"
)

// Bundle is what the Secret holds: the serving certificate and key, and the CAs that clients
// must trust. The CA's private key is never stored: each renewal makes a new CA, and the bundle
// keeps the previous CA so that a replica still serving the previous certificate stays trusted
// until it has loaded the new one.
type Bundle struct {
	// CABundle is the PEM of the current CA followed by at most one previous CA.
	CABundle []byte
	// CertPEM and KeyPEM are the serving certificate and its key.
	CertPEM, KeyPEM []byte
	// NotAfter is when the serving certificate expires.
	NotAfter time.Time
}

// newBundle makes a CA, signs a serving certificate for dnsNames with it and throws the CA's
// key away. previous, when not nil, is the bundle being replaced; its first CA stays trusted.
func newBundle(dnsNames []string, previous *Bundle) (*Bundle, error) {
	ca, err := certs.NewCA("stencil-apiserver-ca@" + time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	serving, err := ca.Sign(certs.Request{CommonName: dnsNames[0], DNSNames: dnsNames, Validity: Validity})
	if err != nil {
		return nil, err
	}
	keyPEM, err := serving.KeyPEM()
	if err != nil {
		return nil, err
	}
	caBundle := ca.CertPEM()
	if previous != nil {
		if cas, err := certutil.ParseCertsPEM(previous.CABundle); err == nil && len(cas) > 0 && time.Now().Before(cas[0].NotAfter) {
			caBundle = append(caBundle, certs.EncodeCertPEM(cas[0])...)
		}
	}
	return &Bundle{CABundle: caBundle, CertPEM: serving.CertPEM(), KeyPEM: keyPEM, NotAfter: serving.Cert.NotAfter}, nil
}

// fromSecret reads a bundle from a Secret; an error says why the Secret cannot be used as it is.
func fromSecret(s *corev1.Secret) (*Bundle, error) {
	b := &Bundle{CABundle: s.Data[CAKey], CertPEM: s.Data[corev1.TLSCertKey], KeyPEM: s.Data[corev1.TLSPrivateKeyKey]}
	if len(b.CABundle) == 0 || len(b.CertPEM) == 0 || len(b.KeyPEM) == 0 {
		return nil, fmt.Errorf("it lacks %s, %s or %s", CAKey, corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	pair, err := tls.X509KeyPair(b.CertPEM, b.KeyPEM)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	b.NotAfter = leaf.NotAfter
	return b, nil
}

// check says why b should be replaced at now for a certificate naming dnsNames, or nil when it
// serves as it is.
func (b *Bundle) check(dnsNames []string, now time.Time) error {
	leaf, err := b.leaf()
	if err != nil {
		return err
	}
	if !slices.Equal(leaf.DNSNames, dnsNames) {
		return fmt.Errorf("it names %v, not %v", leaf.DNSNames, dnsNames)
	}
	if now.After(leaf.NotAfter.Add(-RenewBefore)) {
		return fmt.Errorf("it expires at %s", leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	pool, err := certutil.NewPoolFromBytes(b.CABundle)
	if err != nil {
		return err
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return fmt.Errorf("its CA does not verify it: %w", err)
	}
	return nil
}

func (b *Bundle) leaf() (*x509.Certificate, error) {
	certsInPEM, err := certutil.ParseCertsPEM(b.CertPEM)
	if err != nil {
		return nil, err
	}
	if len(certsInPEM) == 0 {
		return nil, errors.New("no certificate")
	}
	return certsInPEM[0], nil
}

// secretData is b as the data of a kubernetes.io/tls Secret.
func (b *Bundle) secretData() map[string][]byte {
	return map[string][]byte{CAKey: b.CABundle, corev1.TLSCertKey: b.CertPEM, corev1.TLSPrivateKeyKey: b.KeyPEM}
}
