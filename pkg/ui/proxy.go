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
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// readHeaderTimeout bounds a client that opens a connection and sends nothing.
const readHeaderTimeout = 10 * time.Second

// route is one API path the pages may reach, with the methods they use on it.
type route struct {
	methods []string
	path    *regexp.Regexp
}

// name is one path segment that a Kubernetes object or namespace name may be.
const name = `[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?`

// group is the path prefix of Stencil's own API.
const group = `/apis/templates\.stencil\.dev/v1alpha1`

// routes are every API path the pages use; the proxy refuses the rest. Namespaces are listed
// by the catalog server itself (/ui/api/namespaces), which first asks discovery whether the
// cluster serves them. Everything else a
// user's credentials could do (Secrets, exec, other groups) stays out of the browser's reach.
// They are compiled on first use: the bounded repetitions in name expand to megabytes of
// program, which every other stencil command would otherwise pay for at start-up.
var routes = sync.OnceValue(func() []route {
	return []route{
		{[]string{http.MethodGet}, regexp.MustCompile(`^` + group + `$`)},
		{[]string{http.MethodGet}, regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templates$`)},
		{[]string{http.MethodGet}, regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templates/` + name + `(/schema)?$`)},
		{[]string{http.MethodPost}, regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templates/` + name + `/(processed|preview)$`)},
		{[]string{http.MethodGet}, regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templaterevisions$`)},
		{[]string{http.MethodGet, http.MethodPost}, regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templateinstances$`)},
		{[]string{http.MethodGet, http.MethodDelete}, regexp.MustCompile(`^` + group + `/namespaces/` + name + `/templateinstances/` + name + `$`)},
	}
})

// allowed says whether the pages may send method to path. The path must be in its plain form:
// an escaped or dot-segment path could read differently upstream.
func allowed(method string, u *url.URL) bool {
	if u.RawPath != "" || strings.Contains(u.Path, "//") || strings.Contains(u.Path, "/.") {
		return false
	}
	for _, r := range routes() {
		if r.path.MatchString(u.Path) {
			return slices.Contains(r.methods, method)
		}
	}
	return false
}

// forwardedHeaders are the only request headers passed upstream: nothing the browser sends can
// add credentials, impersonation or cookies to the user's own.
var forwardedHeaders = []string{"Accept", "Content-Type"}

// newProxy returns the handler of /k8s/...: the allow-list, then the cluster with the user's
// credentials, which the transport adds.
func newProxy(config *rest.Config, answers *answers) (http.Handler, error) {
	target, err := url.Parse(config.Host)
	if err != nil {
		return nil, err
	}
	if target.Scheme == "" {
		target.Scheme = "https"
	}
	transport, err := rest.TransportFor(config)
	if err != nil {
		return nil, err
	}
	proxy := &httputil.ReverseProxy{
		Transport: transport,
		Rewrite: func(r *httputil.ProxyRequest) {
			in := r.In.Header
			r.Out.Header = http.Header{}
			for _, h := range forwardedHeaders {
				if v := in.Values(h); len(v) > 0 {
					r.Out.Header[h] = v
				}
			}
			r.SetURL(target)
			r.Out.Host = ""
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Del("Set-Cookie")
			resp.Header.Del(AnswerHeader)
			resp.Header.Set("Cache-Control", "no-store")
			return answers.record(resp)
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeError(w, http.StatusBadGateway, "the cluster did not answer: "+err.Error())
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed(r.Method, r.URL) {
			writeError(w, http.StatusForbidden, "stencil ui does not proxy "+r.Method+" "+r.URL.Path)
			return
		}
		proxy.ServeHTTP(w, r)
	}), nil
}
