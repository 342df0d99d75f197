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
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// serviceProxy stands in for kube-proxy: it spreads connections to the Service's port over the
// replicas, skipping a replica that does not accept.
type serviceProxy struct {
	listener net.Listener
	backends []string
	next     atomic.Uint64
	wg       sync.WaitGroup
}

func newServiceProxy(addr string, backends []string) (*serviceProxy, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &serviceProxy{listener: l, backends: backends}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *serviceProxy) serve() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		go p.forward(client)
	}
}

func (p *serviceProxy) forward(client net.Conn) {
	defer client.Close()
	start := p.next.Add(1)
	var backend net.Conn
	for i := range p.backends {
		conn, err := net.Dial("tcp", p.backends[(int(start)+i)%len(p.backends)])
		if err == nil {
			backend = conn
			break
		}
	}
	if backend == nil {
		return
	}
	defer backend.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(backend, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, backend); done <- struct{}{} }()
	<-done
}

func (p *serviceProxy) close() {
	_ = p.listener.Close()
	p.wg.Wait()
}
