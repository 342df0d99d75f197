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
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestProxyRefuses sends the requests an attacker would to the running `stencil ui`, and one
// allowed request to show that the refusals are the guards' and not a broken proxy.
func TestProxyRefuses(t *testing.T) {
	u, err := url.Parse(catalogURL)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimPrefix(u.Fragment, "token=")
	base := "http://" + u.Host
	const templates = "/k8s/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates"
	cases := []struct {
		name         string
		method, path string
		host         string
		token        string
		headers      map[string]string
		body         string
		wantCode     int
	}{
		{name: "allowed: listing templates", method: "GET", path: templates, token: token, wantCode: 200},
		{name: "allowed: processing", method: "POST", path: templates + "/mysql-persistent/processed?dryRun=All", token: token,
			headers: map[string]string{"Origin": base, "Sec-Fetch-Site": "same-origin"}, body: `{"parameters":{}}`, wantCode: 201},
		{name: "wrong Host (DNS rebinding)", method: "GET", path: templates, host: "attacker.example:" + u.Port(), token: token, wantCode: 421},
		{name: "cross-site without the token", method: "POST", path: templates + "/mysql-persistent/processed",
			headers: map[string]string{"Origin": "http://attacker.example", "Sec-Fetch-Site": "cross-site"}, body: `{}`, wantCode: 403},
		{name: "a simple cross-site form post", method: "POST", path: "/ui/api/apply",
			headers: map[string]string{"Origin": "http://attacker.example", "Content-Type": "text/plain"}, body: `{"objects":[]}`, wantCode: 403},
		{name: "no token", method: "GET", path: templates, wantCode: 401},
		{name: "Secrets are outside the allow-list", method: "GET", path: "/k8s/api/v1/namespaces/default/secrets", token: token, wantCode: 403},
		{name: "deleting a template is outside the allow-list", method: "DELETE", path: templates + "/mysql-persistent", token: token,
			headers: map[string]string{"Origin": base}, wantCode: 403},
		{name: "dot segments", method: "GET", path: templates + "/x/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/api/v1/secrets", token: token, wantCode: 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if c.host != "" {
				req.Host = c.host
			}
			if c.token != "" {
				req.Header.Set("X-Stencil-Token", c.token)
			}
			if c.body != "" && req.Header.Get("Content-Type") == "" {
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.wantCode {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, c.wantCode, body)
			}
		})
	}
}
