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

package ui

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

func TestAllowed(t *testing.T) {
	const g = "/apis/templates.stencil.dev/v1alpha1"
	cases := []struct {
		method, path string
		want         bool
	}{
		{"GET", g, true},
		{"GET", g + "/namespaces/demo/templates", true},
		{"GET", g + "/namespaces/demo/templates/mysql", true},
		{"GET", g + "/namespaces/demo/templates/mysql/schema", true},
		{"POST", g + "/namespaces/demo/templates/mysql/processed", true},
		{"GET", g + "/namespaces/demo/templateinstances", true},
		{"POST", g + "/namespaces/demo/templateinstances", true},
		{"GET", g + "/namespaces/demo/templateinstances/shop", true},
		{"DELETE", g + "/namespaces/demo/templateinstances/shop", true},
		{"POST", g + "/namespaces/demo/templates/mysql/preview", true},
		{"GET", g + "/namespaces/demo/templaterevisions", true},

		{"GET", "/api/v1/namespaces", false},
		{"DELETE", g + "/namespaces/demo/templates/mysql", false},
		{"PUT", g + "/namespaces/demo/templates/mysql", false},
		{"POST", g + "/namespaces/demo/templates", false},
		{"PATCH", g + "/namespaces/demo/templateinstances/shop", false},
		{"DELETE", g + "/namespaces/demo/templateinstances", false},
		{"POST", g + "/processedtemplates", false},
		{"GET", g + "/namespaces/demo/templates/mysql/preview", false},
		{"DELETE", g + "/namespaces/demo/templaterevisions", false},
		{"GET", g + "/namespaces/demo/templaterevisions/mysql-1", false},
		{"GET", g + "/customtransforms", false},
		{"GET", "/api/v1/namespaces/demo/secrets", false},
		{"GET", "/api/v1/namespaces/demo/secrets/db", false},
		{"POST", "/api/v1/namespaces/demo/pods/web/exec", false},
		{"GET", "/api/v1/namespaces/demo", false},
		{"GET", "/apis", false},
		{"GET", g + "/namespaces/demo/templates/mysql/../../../../../api/v1/secrets", false},
		{"GET", g + "/namespaces/Demo/templates", false},
		{"GET", g + "/namespaces/demo/templates/", false},
		{"GET", g + "//namespaces/demo/templates", false},
	}
	for _, c := range cases {
		if got := allowed(c.method, &url.URL{Path: c.path}); got != c.want {
			t.Errorf("%s %s: allowed=%v, want %v", c.method, c.path, got, c.want)
		}
	}
	escaped, _ := url.Parse(g + "/namespaces/demo/templates/a%2Fb")
	if allowed("GET", escaped) {
		t.Errorf("an escaped path was allowed: %s", escaped)
	}
}

// TestGuards drives the handler chain in front of the proxy: Host, token, cross-site, paths.
// Every refusal happens before the cluster is asked, so no cluster answers here.
func TestGuards(t *testing.T) {
	s, err := NewServer(Options{RESTConfig: &rest.Config{Host: "https://127.0.0.1:1"}, Namespace: "demo"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host := s.listener.Addr().String()
	const processed = "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templates/mysql/processed"
	cases := []struct {
		name          string
		method, path  string
		host          string
		token         string
		headers       map[string]string
		wantCode      int
		wantInMessage string
	}{
		{name: "the page itself", method: "GET", path: "/", host: host, wantCode: 200},
		{name: "config with the token", method: "GET", path: "/ui/api/config", host: host, token: s.token, wantCode: 200},
		{name: "localhost is this host too", method: "GET", path: "/ui/api/config", host: "localhost:" + port(host), token: s.token, wantCode: 200},
		{name: "a rebinding attacker's Host", method: "GET", path: "/", host: "evil.example:" + port(host), wantCode: 421},
		{name: "a Host that only starts like ours", method: "GET", path: "/ui/api/config", host: "127.0.0.1:" + port(host) + ".evil.example", token: s.token, wantCode: 421},
		{name: "another port", method: "GET", path: "/", host: "127.0.0.1:1", wantCode: 421},
		{name: "no token", method: "GET", path: "/ui/api/config", host: host, wantCode: 401},
		{name: "a wrong token", method: "GET", path: "/ui/api/config", host: host, token: "x" + s.token, wantCode: 401},
		{name: "cross-site without the token", method: "POST", path: processed, host: host,
			headers: map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}, wantCode: 403, wantInMessage: "cross-site request refused"},
		{name: "a cross-site read without the token", method: "GET", path: "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templates", host: host,
			headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, wantCode: 401},
		{name: "cross-site even with the token", method: "POST", path: processed, host: host, token: s.token,
			headers: map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}, wantCode: 403},
		{name: "an Origin of another site", method: "POST", path: "/ui/api/apply", host: host, token: s.token,
			headers: map[string]string{"Origin": "http://evil.example"}, wantCode: 403},
		{name: "a path outside the allow-list", method: "GET", path: "/k8s/api/v1/namespaces/demo/secrets", host: host, token: s.token,
			wantCode: 403, wantInMessage: "does not proxy GET /api/v1/namespaces/demo/secrets"},
		{name: "a method outside the allow-list", method: "DELETE", path: "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templates/mysql",
			host: host, token: s.token, wantCode: 403},
		{name: "posting to the pages", method: "POST", path: "/index.html", host: host, wantCode: 405},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.path, strings.NewReader("{}"))
			r.Host = c.host
			if c.token != "" {
				r.Header.Set(TokenHeader, c.token)
			}
			for k, v := range c.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			s.server.Handler.ServeHTTP(w, r)
			if w.Code != c.wantCode {
				t.Fatalf("HTTP %d, want %d: %s", w.Code, c.wantCode, w.Body)
			}
			if !strings.Contains(w.Body.String(), c.wantInMessage) {
				t.Errorf("answer %s lacks %q", w.Body, c.wantInMessage)
			}
			if csp := w.Header().Get("Content-Security-Policy"); c.wantCode != 421 && !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
		})
	}
}

func port(hostPort string) string { return hostPort[strings.LastIndex(hostPort, ":")+1:] }

func TestURLKeepsTheTokenInTheFragment(t *testing.T) {
	s, err := NewServer(Options{RESTConfig: &rest.Config{Host: "https://127.0.0.1:1"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() != "127.0.0.1" || u.RawQuery != "" || u.Fragment != "token="+s.token || len(s.token) < 40 {
		t.Errorf("URL %s: the token belongs in the fragment only, on loopback", s.URL())
	}
	var _ http.Handler = s.server.Handler
}
