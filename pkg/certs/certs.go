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

// Package certs makes the small PKIs that local mode and the e2e suite need: a CA and the
// serving and client certificates it signs.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const validity = 10 * 365 * 24 * time.Hour

// KeyPair is a certificate with its private key.
type KeyPair struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// NewCA creates a self-signed certificate authority.
func NewCA(commonName string) (*KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Cert: cert, Key: key}, nil
}

// Request describes a certificate to sign.
type Request struct {
	// CommonName is the user name of a client certificate.
	CommonName string
	// Organizations are the groups of a client certificate.
	Organizations []string
	// DNSNames and IPs make it a serving certificate.
	DNSNames []string
	IPs      []net.IP
	// Validity is how long the certificate is valid; zero means ten years.
	Validity time.Duration
}

// Sign issues a certificate for req: a serving certificate when it names hosts, a client
// certificate otherwise.
func (ca *KeyPair) Sign(req Request) (*KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	lifetime := validity
	if req.Validity > 0 {
		lifetime = req.Validity
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: req.CommonName, Organization: req.Organizations},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(lifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		DNSNames:     req.DNSNames,
		IPAddresses:  req.IPs,
	}
	if len(req.DNSNames) > 0 || len(req.IPs) > 0 {
		// A server may also be a client of its peers, as etcd members are.
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &KeyPair{Cert: cert, Key: key}, nil
}

// CertPEM encodes the certificate.
func (kp *KeyPair) CertPEM() []byte { return EncodeCertPEM(kp.Cert) }

// EncodeCertPEM encodes one certificate as PEM.
func EncodeCertPEM(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw})
}

// KeyPEM encodes the private key.
func (kp *KeyPair) KeyPEM() ([]byte, error) {
	return keyutil.MarshalPrivateKeyToPEM(kp.Key)
}

// Write stores the pair as <dir>/<name>.crt and <dir>/<name>.key, readable by the owner only.
func (kp *KeyPair) Write(dir, name string) error {
	keyPEM, err := kp.KeyPEM()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), kp.CertPEM(), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".key"), keyPEM, 0o600)
}
