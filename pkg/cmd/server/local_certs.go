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
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"

	certutil "k8s.io/client-go/util/cert"

	"stencil.dev/stencil/pkg/certs"
)

const (
	clientCAName  = "client-ca"
	adminCertFile = "admin.crt"
	adminKeyFile  = "admin.key"
	// adminUser is in system:masters, the one group local mode authorizes.
	adminUser  = "stencil-admin"
	adminGroup = "system:masters"
)

// ensureClientCertificates creates, once, a client CA and an administrator certificate signed
// by it, and returns the CA's file. Later runs reuse them so an existing kubeconfig keeps working.
func ensureClientCertificates(dir string) (string, error) {
	caFile := filepath.Join(dir, clientCAName+".crt")
	if ok, _ := certutil.CanReadCertAndKey(filepath.Join(dir, adminCertFile), filepath.Join(dir, adminKeyFile)); ok {
		if _, err := os.Stat(caFile); err == nil {
			return caFile, nil
		}
	}
	ca, err := certs.NewCA("stencil-local-client-ca")
	if err != nil {
		return "", err
	}
	admin, err := ca.Sign(certs.Request{CommonName: adminUser, Organizations: []string{adminGroup}})
	if err != nil {
		return "", err
	}
	if err := ca.Write(dir, clientCAName); err != nil {
		return "", err
	}
	return caFile, admin.Write(dir, "admin")
}

// etcdTLS are the files that secure local mode's etcd: only a holder of the client
// certificate, which sits in the owner-only local directory, can read or write it.
type etcdTLS struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

// ensureEtcdCertificates creates, once, an etcd CA with a serving (and peer) certificate for
// 127.0.0.1 and a client certificate for the API server.
func ensureEtcdCertificates(dir string) (etcdTLS, error) {
	files := etcdTLS{
		ca:         filepath.Join(dir, "etcd-ca.crt"),
		serverCert: filepath.Join(dir, "etcd-server.crt"),
		serverKey:  filepath.Join(dir, "etcd-server.key"),
		clientCert: filepath.Join(dir, "etcd-client.crt"),
		clientKey:  filepath.Join(dir, "etcd-client.key"),
	}
	serverOK, _ := certutil.CanReadCertAndKey(files.serverCert, files.serverKey)
	clientOK, _ := certutil.CanReadCertAndKey(files.clientCert, files.clientKey)
	if _, err := os.Stat(files.ca); err == nil && serverOK && clientOK {
		return files, nil
	}
	ca, err := certs.NewCA("stencil-local-etcd-ca")
	if err != nil {
		return files, err
	}
	server, err := ca.Sign(certs.Request{CommonName: "stencil-local-etcd", IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		return files, err
	}
	client, err := ca.Sign(certs.Request{CommonName: "stencil-apiserver"})
	if err != nil {
		return files, err
	}
	for name, kp := range map[string]*certs.KeyPair{"etcd-ca": ca, "etcd-server": server, "etcd-client": client} {
		if err := kp.Write(dir, name); err != nil {
			return files, err
		}
	}
	return files, nil
}

// trustAnchors returns what a kubeconfig's certificate-authority-data must hold for the
// serving certificate file chain (PEM, leaf first, as the generic server writes a self-signed
// one): its CA certificates only. Clients take that field as the set of trusted roots; with
// the leaf in it too, OpenSSL-based clients (Ruby's kubeclient) stop at "self-signed certificate
// in certificate chain", though Go, Node and Python accept it. A chain without a CA certificate
// (a self-signed leaf given with --tls-cert-file) is its own trust anchor and is kept whole.
func trustAnchors(chain []byte) ([]byte, error) {
	var anchors bytes.Buffer
	rest := chain
	found := 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		found++
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d of the serving certificate file: %w", found, err)
		}
		if cert.IsCA {
			if err := pem.Encode(&anchors, &pem.Block{Type: "CERTIFICATE", Bytes: block.Bytes}); err != nil {
				return nil, err
			}
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("the serving certificate file holds no certificate")
	}
	if anchors.Len() == 0 {
		return chain, nil
	}
	return anchors.Bytes(), nil
}
