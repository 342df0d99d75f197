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

package servingcert

import (
	"sync"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// provider hands the generic server the certificate to serve, and tells it when the
// certificate changed; the server then swaps it in for new connections.
type provider struct {
	mu        sync.Mutex
	cert, key []byte
	listeners []dynamiccertificates.Listener
}

var _ dynamiccertificates.CertKeyContentProvider = &provider{}

// Name names the provider in the generic server's logs.
func (*provider) Name() string { return "serving-cert-secret" }

// CurrentCertKeyContent returns the certificate and key PEM being served.
func (p *provider) CurrentCertKeyContent() ([]byte, []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cert, p.key
}

// AddListener registers a listener for changes of the certificate.
func (p *provider) AddListener(l dynamiccertificates.Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, l)
}

// set serves b's certificate from now on and says whether that changed anything.
func (p *provider) set(b *Bundle) bool {
	p.mu.Lock()
	changed := string(p.cert) != string(b.CertPEM) || string(p.key) != string(b.KeyPEM)
	p.cert, p.key = b.CertPEM, b.KeyPEM
	listeners := p.listeners
	p.mu.Unlock()
	if changed {
		for _, l := range listeners {
			l.Enqueue()
		}
	}
	return changed
}
