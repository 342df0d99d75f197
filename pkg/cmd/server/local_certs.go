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
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const (
	clientCACertFile = "client-ca.crt"
	clientCAKeyFile  = "client-ca.key"
	adminCertFile    = "admin.crt"
	adminKeyFile     = "admin.key"
	// adminUser is in system:masters, the one group local mode authorizes.
	adminUser  = "stencil-admin"
	adminGroup = "system:masters"
)

// ensureClientCertificates creates, once, a client CA and an administrator certificate signed
// by it, and returns the CA's file. Later runs reuse them so an existing kubeconfig keeps working.
func ensureClientCertificates(dir string) (string, error) {
	caFile := filepath.Join(dir, clientCACertFile)
	if ok, _ := certutil.CanReadCertAndKey(filepath.Join(dir, adminCertFile), filepath.Join(dir, adminKeyFile)); ok {
		if _, err := os.Stat(caFile); err == nil {
			return caFile, nil
		}
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	caCert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "stencil-local-client-ca"}, caKey)
	if err != nil {
		return "", err
	}
	adminKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	adminDER, err := signClientCert(caCert, caKey, &adminKey.PublicKey)
	if err != nil {
		return "", err
	}
	if err := writeKeyPair(dir, clientCACertFile, clientCAKeyFile, caCert.Raw, caKey); err != nil {
		return "", err
	}
	if err := writeKeyPair(dir, adminCertFile, adminKeyFile, adminDER, adminKey); err != nil {
		return "", err
	}
	return caFile, nil
}

func signClientCert(ca *x509.Certificate, caKey crypto.Signer, pub crypto.PublicKey) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: adminUser, Organization: []string{adminGroup}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
}

func writeKeyPair(dir, certName, keyName string, certDER []byte, key *ecdsa.PrivateKey) error {
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: certDER})
	if err := os.WriteFile(filepath.Join(dir, certName), certPEM, 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", certName, err)
	}
	return os.WriteFile(filepath.Join(dir, keyName), keyPEM, 0o600)
}
