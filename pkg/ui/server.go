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

// Package ui serves the web catalog of `stencil ui`: embedded static pages and an in-process
// proxy that reaches the cluster with the user's own kubeconfig credentials. It listens on
// loopback only and refuses requests that name another host (DNS rebinding), that lack the
// per-run token (other local users, cross-site pages) or that ask for an API path the pages do
// not need. No credential ever reaches the page.
package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"k8s.io/client-go/rest"
)

// TokenHeader carries the per-run token on every API request of the pages. A custom header
// cannot be sent cross-site without a CORS preflight, which this server never grants.
const TokenHeader = "X-Stencil-Token"

// Options configure one catalog server.
type Options struct {
	// RESTConfig reaches the cluster as the user.
	RESTConfig *rest.Config
	// Namespace is the current namespace of the user's kubeconfig.
	Namespace string
	// CatalogNamespaces are the shared namespaces whose templates the catalog also lists.
	CatalogNamespaces []string
}

// Server is the catalog UI on one loopback listener.
type Server struct {
	options  Options
	listener net.Listener
	server   *http.Server
	token    string
	hosts    map[string]bool
	actions  *actions
}

// NewServer listens on 127.0.0.1:port (0 picks a free port) and prepares the handlers.
func NewServer(options Options, port int) (*Server, error) {
	if options.RESTConfig == nil {
		return nil, fmt.Errorf("no cluster configuration")
	}
	listener, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		listener.Close()
		return nil, err
	}
	bound := strconv.Itoa(listener.Addr().(*net.TCPAddr).Port)
	s := &Server{
		options:  options,
		listener: listener,
		token:    base64.RawURLEncoding.EncodeToString(secret),
		// Exact names only: a rebinding attacker's page sends its own domain as Host.
		hosts: map[string]bool{"127.0.0.1:" + bound: true, "localhost:" + bound: true},
	}
	answers := newAnswers()
	proxy, err := newProxy(options.RESTConfig, answers)
	if err != nil {
		listener.Close()
		return nil, err
	}
	actions, err := newActions(options.RESTConfig, answers)
	if err != nil {
		listener.Close()
		return nil, err
	}
	s.actions = actions
	rollouts, err := newRollouts(options.RESTConfig)
	if err != nil {
		listener.Close()
		return nil, err
	}
	api := http.NewServeMux()
	api.Handle("/k8s/", http.StripPrefix("/k8s", proxy))
	api.HandleFunc("GET /ui/api/config", s.serveConfig)
	api.HandleFunc("GET /ui/api/namespaces", actions.serveNamespaces)
	api.HandleFunc("POST /ui/api/apply", actions.serveApply)
	api.HandleFunc("POST /ui/api/status", actions.serveStatus)
	api.HandleFunc("POST /ui/api/instance-message", actions.serveInstanceMessage)
	api.HandleFunc("GET /ui/api/rollout", rollouts.serveAccess)
	api.HandleFunc("POST /ui/api/rollout", rollouts.serveRollout)

	mux := http.NewServeMux()
	mux.Handle("/", assetHandler())
	// Cross-site writes are refused even with the token: a page of another site must not act
	// through a tab that holds it.
	crossOrigin := http.NewCrossOriginProtection()
	crossOrigin.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusForbidden, "cross-site request refused")
	}))
	protected := crossOrigin.Handler(s.requireToken(api))
	mux.Handle("/k8s/", protected)
	mux.Handle("/ui/api/", protected)
	s.server = &http.Server{Handler: s.checkHost(securityHeaders(mux)), ReadHeaderTimeout: readHeaderTimeout}
	return s, nil
}

// URL is the address to open, with the token in the fragment: browsers never send a fragment
// to a server, so it stays out of logs and Referer headers.
func (s *Server) URL() string {
	return fmt.Sprintf("http://%s/#token=%s", s.listener.Addr().String(), s.token)
}

// Serve answers requests until Close.
func (s *Server) Serve() error {
	if err := s.server.Serve(s.listener); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// Close stops listening and drops open connections; Serve then returns nil.
func (s *Server) Close() error {
	err := s.server.Close()
	// Before Serve, the listener is the server's to close only once it serves.
	s.listener.Close()
	return err
}

// checkHost refuses a Host header that is not this listener's own address.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hosts[r.Host] {
			writeError(w, http.StatusMisdirectedRequest, "the Host header names another site")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireToken refuses requests without the per-run token.
func (s *Server) requireToken(next http.Handler) http.Handler {
	want := []byte(s.token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), want) != 1 {
			writeError(w, http.StatusUnauthorized, "missing or wrong "+TokenHeader+": open the URL stencil ui printed")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// securityHeaders keep the pages from being framed, sniffed or made to load anything from
// elsewhere.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

// config is what the pages need to know about this run.
type config struct {
	Namespace         string   `json:"namespace"`
	CatalogNamespaces []string `json:"catalogNamespaces"`
	// Server is the API server's address, shown so the user knows which cluster this is.
	Server string `json:"server"`
	// CoreAPI says whether the server serves the core API (namespaces, the kinds templates
	// create): a local-mode Stencil server does not, and objects applied there fail. When
	// discovery does not answer it is assumed, so that no false warning shows.
	CoreAPI bool `json:"coreAPI"`
}

func (s *Server) serveConfig(w http.ResponseWriter, r *http.Request) {
	core, err := s.actions.servesCore(r.Context(), "namespaces")
	writeJSON(w, http.StatusOK, config{
		Namespace:         s.options.Namespace,
		CatalogNamespaces: s.options.CatalogNamespaces,
		Server:            s.options.RESTConfig.Host,
		CoreAPI:           core || err != nil,
	})
}

// writeJSON answers v as JSON, never cached.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers a metav1.Status-shaped failure, as the API server does, so the pages
// read one error format.
func writeError(w http.ResponseWriter, code int, message string) {
	writeJSON(w, code, map[string]any{
		"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "code": code,
	})
}
