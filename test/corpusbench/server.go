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

package corpusbench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	genericapiserver "k8s.io/apiserver/pkg/server"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	basecompatibility "k8s.io/component-base/compatibility"
	baseversion "k8s.io/component-base/version"

	"stencil.dev/stencil/pkg/cmd/server"
)

// Server is stencil-apiserver in local mode, in this process, with its embedded etcd: the
// same options, configuration and handler chain as `make run` serves. It is reached two ways:
//   - its handler chain (what the serving loop calls once TLS has read a request), with the
//     loopback client's token: every filter every API server runs (authentication,
//     authorization, audit, priority and fairness, timeouts) included;
//   - the handler those filters hand requests to (StencilServer.InnerHandler: Stencil's own
//     filters and the API's routes), with the request information and the user the filters
//     set: the server's path for processing, from the request's body to the answer's bytes.
type Server struct {
	chain, handler http.Handler
	token          string
	stop           func()
}

// StartServer starts the server with its data in dir.
func StartServer(ctx context.Context, dir string) (*Server, error) {
	o := server.NewStencilServerOptions(io.Discard, io.Discard)
	_, _ = o.ComponentGlobalsRegistry.ComponentGlobalsOrRegister(basecompatibility.DefaultKubeComponent,
		basecompatibility.NewEffectiveVersionFromString(baseversion.DefaultKubeBinaryVersion, "", ""),
		utilfeature.DefaultMutableFeatureGate)
	fs := pflag.NewFlagSet("stencil-apiserver", pflag.ContinueOnError)
	o.AddFlags(fs)
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := fs.Parse([]string{"--local", "--local-dir", dir, "--secure-port", strconv.Itoa(port)}); err != nil {
		return nil, err
	}
	if err := o.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	if err := o.Complete(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	stopEtcd, err := o.Local.Start(ctx)
	if err != nil {
		return nil, err
	}
	config, err := o.Config()
	if err != nil {
		stopEtcd()
		return nil, err
	}
	s, err := config.Complete().New()
	if err != nil {
		stopEtcd()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	prepared := s.GenericAPIServer.PrepareRun()
	go func() {
		defer close(done)
		_ = prepared.RunWithContext(runCtx)
	}()
	loopback := &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}
	inner := s.InnerHandler
	handler := filters.WithRequestInfo(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), loopback)))
	}), genericapiserver.NewRequestInfoResolver(&config.GenericConfig.Config))
	return &Server{
		chain:   s.GenericAPIServer.Handler,
		handler: handler,
		token:   config.GenericConfig.LoopbackClientConfig.BearerToken,
		stop: func() {
			cancel()
			<-done
			stopEtcd()
		},
	}, nil
}

// Stop stops the server and its etcd.
func (s *Server) Stop() { s.stop() }

// ProcessedTemplates posts body (JSON, or YAML) to templates.stencil.dev's processedtemplates
// in namespace through the handler past the filters (chain false) or the whole handler chain,
// and writes the answer into w, failing unless it is a 201.
func (s *Server) ProcessedTemplates(namespace string, body []byte, yamlBody, chain bool, w *ResponseBuffer) error {
	req, err := http.NewRequest(http.MethodPost, "/apis/templates.stencil.dev/v1alpha1/namespaces/"+namespace+"/processedtemplates", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Accept", "application/json")
	if yamlBody {
		req.Header.Set("Content-Type", "application/yaml")
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	req.RemoteAddr = "127.0.0.1:40000"
	w.Reset()
	if chain {
		s.chain.ServeHTTP(w, req)
	} else {
		s.handler.ServeHTTP(w, req)
	}
	if w.Status != http.StatusCreated {
		return fmt.Errorf("status %d: %s", w.Status, w.Body.Bytes())
	}
	return nil
}

// ResponseBuffer is an http.ResponseWriter that keeps the status and the body.
type ResponseBuffer struct {
	Status int
	Body   bytes.Buffer
	header http.Header
}

func (w *ResponseBuffer) Reset() {
	w.Status = 0
	w.Body.Reset()
	w.header = http.Header{}
}

func (w *ResponseBuffer) Header() http.Header { return w.header }

func (w *ResponseBuffer) WriteHeader(status int) {
	if w.Status == 0 {
		w.Status = status
	}
}

func (w *ResponseBuffer) Write(p []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.Body.Write(p)
}

// SetReadDeadline and SetWriteDeadline accept the deadlines the server sets on every
// request's connection (through http.ResponseController), as a served connection does: a
// writer without them answers each call with a new error, a cost no served request pays.
func (w *ResponseBuffer) SetReadDeadline(time.Time) error { return nil }

func (w *ResponseBuffer) SetWriteDeadline(time.Time) error { return nil }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
