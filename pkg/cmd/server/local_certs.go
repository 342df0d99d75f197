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
