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
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// fakeCluster answers a SelfSubjectAccessReview with allowed (404 when reviews is false, as
// Stencil's local mode does), a Template with a rollout, and records every other request.
type fakeCluster struct {
	allowed, reviews bool
	mu               sync.Mutex
	writes           []string
}

func (f *fakeCluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews"):
		if !f.reviews {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)
			return
		}
		_, _ = io.WriteString(w, `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","status":{"allowed":`+map[bool]string{true: "true", false: "false"}[f.allowed]+`,"reason":"no RBAC policy matched"}}`)
	case r.Method == http.MethodGet:
		_, _ = io.WriteString(w, `{"kind":"Template","apiVersion":"templates.stencil.dev/v1alpha1","metadata":{"name":"app","namespace":"ns"},"rollout":{"waves":[1]}}`)
	default:
		f.mu.Lock()
		f.writes = append(f.writes, r.Method+" "+r.URL.String())
		f.mu.Unlock()
		if !f.allowed {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","message":"templates \"app\" is forbidden","code":403}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write(body)
	}
}

// TestRolloutEndpoint: the rollout endpoint asks the cluster whether the user may update the
// Template before anything (a SelfSubjectAccessReview, or a dry run where the cluster serves
// none), refuses with 403 and writes nothing when not, writes the Template when so, and refuses
// an action or a name it does not know before asking anything.
func TestRolloutEndpoint(t *testing.T) {
	for _, c := range []struct {
		name             string
		allowed, reviews bool
		body             string
		wantCode         int
		wantWrites       []string
	}{
		{"denied", false, true, `{"namespace":"ns","name":"app","action":"pause"}`, 403, nil},
		{"denied, a resume that would change nothing", false, true, `{"namespace":"ns","name":"app","action":"resume"}`, 403, nil},
		{"allowed", true, true, `{"namespace":"ns","name":"app","action":"pause"}`, 200,
			[]string{"PUT /apis/templates.stencil.dev/v1alpha1/namespaces/ns/templates/app"}},
		{"no reviews served: a dry run says no", false, false, `{"namespace":"ns","name":"app","action":"pause"}`, 403,
			[]string{"PUT /apis/templates.stencil.dev/v1alpha1/namespaces/ns/templates/app?dryRun=All"}},
		{"no reviews served: a dry run says yes", true, false, `{"namespace":"ns","name":"app","action":"pause"}`, 200,
			[]string{"PUT /apis/templates.stencil.dev/v1alpha1/namespaces/ns/templates/app?dryRun=All", "PUT /apis/templates.stencil.dev/v1alpha1/namespaces/ns/templates/app"}},
		{"an unknown action", true, true, `{"namespace":"ns","name":"app","action":"delete"}`, 422, nil},
		{"a name that is no name", true, true, `{"namespace":"ns","name":"../../secrets","action":"pause"}`, 422, nil},
		{"a field the endpoint does not take", true, true, `{"namespace":"ns","name":"app","action":"pause","spec":{}}`, 400, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cluster := &fakeCluster{allowed: c.allowed, reviews: c.reviews}
			api := httptest.NewServer(cluster)
			defer api.Close()
			r, err := newRollouts(&rest.Config{Host: api.URL})
			if err != nil {
				t.Fatal(err)
			}
			w := httptest.NewRecorder()
			r.serveRollout(w, httptest.NewRequest(http.MethodPost, "/ui/api/rollout", strings.NewReader(c.body)))
			if w.Code != c.wantCode {
				t.Errorf("HTTP %d, want %d: %s", w.Code, c.wantCode, w.Body)
			}
			if strings.Join(cluster.writes, "\n") != strings.Join(c.wantWrites, "\n") {
				t.Errorf("the cluster got %q, want %q", cluster.writes, c.wantWrites)
			}
			var access rolloutAccess
			w = httptest.NewRecorder()
			r.serveAccess(w, httptest.NewRequest(http.MethodGet, "/ui/api/rollout?namespace=ns&name=app", nil))
			if err := json.Unmarshal(w.Body.Bytes(), &access); c.wantCode != 422 && c.wantCode != 400 && (err != nil || access.Allowed != c.allowed) {
				t.Errorf("access: %s", w.Body)
			}
		})
	}
}
