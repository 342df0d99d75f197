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

package apiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// What a processing request keeps in memory of its own rather than in allocations of their
// own (issue 36, ninth round): the Template a converted YAML body decodes into and its kind
// (processingRequest), the headers the body filter sets (filteredBody), the contexts carrying
// its Hold and its AnswerRelease, and admission's wrappers, built once, with attributes made
// for each request. The tests below attack each as another user would.

// ownAdmission is a mutating and validating admission that checks it is asked about the
// request it is called in: the user of the context is the attributes' user, and the name of
// the Template admitted is the attributes' name and carries the user's name. Attributes, a
// Template or a context kept from another request show as a mismatch.
type ownAdmission struct {
	asked, wrong atomic.Int32
	mu           sync.Mutex
	first        string
}

func (a *ownAdmission) Handles(admission.Operation) bool { return true }

func (a *ownAdmission) check(ctx context.Context, attrs admission.Attributes) {
	a.asked.Add(1)
	// Other requests run meanwhile: memory they share with this one would have changed.
	time.Sleep(200 * time.Microsecond)
	u, _ := request.UserFrom(ctx)
	t, _ := attrs.GetObject().(*templates.Template)
	if u == nil || t == nil || attrs.GetUserInfo() == nil || attrs.GetUserInfo().GetName() != u.GetName() ||
		t.Name != attrs.GetName() || !strings.HasPrefix(t.Name, u.GetName()+"-") {
		a.wrong.Add(1)
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.first == "" {
			a.first = fmt.Sprintf("context's user %v, attributes' user %v and name %q, Template %v", u, attrs.GetUserInfo(), attrs.GetName(), t)
		}
	}
}

func (a *ownAdmission) Admit(ctx context.Context, attrs admission.Attributes, _ admission.ObjectInterfaces) error {
	a.check(ctx, attrs)
	return nil
}

func (a *ownAdmission) Validate(ctx context.Context, attrs admission.Attributes, _ admission.ObjectInterfaces) error {
	a.check(ctx, attrs)
	return nil
}

// usersChain is the server's processing route of our group with admit (nil: none), behind the
// filters of newProcessingPair, the user named by the request's X-User header.
func usersChain(t *testing.T, admit admission.Interface) http.Handler {
	t.Helper()
	gv := v1alpha1.SchemeGroupVersion
	storage := processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{}))
	s := processingScope{serializer: Served, admission: admit, maxBodyBytes: 1 << 20}
	scope, err := processingRequestScope(gv, "processedtemplates", storage, s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newProcessingHandler(storage, scope, s.admission, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("handed on to the create handler: %s", r.Header.Get("X-User"))
		w.WriteHeader(http.StatusTeapot)
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &processingRoutes{next: http.NotFoundHandler(), routes: map[schema.GroupVersionResource]http.Handler{
		gv.WithResource("processedtemplates"): instrumentProcessing(gv, "processedtemplates", h.ServeHTTP)}}
	bodies := withBodies(renderrest.ReadProvenanceParameter(p), 1<<20, Codecs, p.mayFinish)
	inner := renderrest.NewProcessingBudget(64<<20, nil).HoldUntilWritten(bodies)
	withUser := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: r.Header.Get("X-User")})))
	})
	return filters.WithWarningRecorder(filters.WithRequestInfo(withUser,
		&request.RequestInfoFactory{APIPrefixes: sets.NewString("apis"), GrouplessAPIPrefixes: sets.NewString("api")}))
}

// TestProcessingRequestsAreTheirOwn: users posting YAML and JSON Templates at once, each named
// after its user and round, must each be admitted with attributes of their own request (made
// for it, with its user and its Template) and answered with their own objects. A Template
// decoded into memory another request shares, admission attributes kept between requests, or
// a context carrying another request's Hold or release fails it (and races, under -race). A
// server without admission answers the same requests.
func TestProcessingRequestsAreTheirOwn(t *testing.T) {
	const users, rounds = 8, 30
	body := func(userName string, round int) (string, string, string) {
		name := fmt.Sprintf("%s-r%d", userName, round)
		value := "v-" + name
		if round%2 == 0 {
			return "application/yaml", "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: " + name +
				"\nparameters:\n- name: P\n  value: " + value + "\nobjects:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: c-${P}\n" +
				"  data:\n    pad: " + strings.Repeat("x", 50*round) + "\n", value
		}
		return "application/json", `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"` + name +
			`"},"parameters":[{"name":"P","value":"` + value + `"}],"objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${P}"},` +
			`"data":{"pad":"` + strings.Repeat("y", 50*round) + `"}}]}`, value
	}
	for _, withAdmission := range []bool{true, false} {
		t.Run(fmt.Sprintf("admission=%v", withAdmission), func(t *testing.T) {
			admit := &ownAdmission{}
			chain := usersChain(t, nil)
			if withAdmission {
				chain = usersChain(t, admit)
			}
			var wg sync.WaitGroup
			for u := range users {
				wg.Go(func() {
					userName := fmt.Sprintf("user%d", u)
					for round := range rounds {
						contentType, data, value := body(userName, round)
						req := httptest.NewRequest(http.MethodPost, "/apis/templates.stencil.dev/v1alpha1/namespaces/demo/processedtemplates", strings.NewReader(data))
						req.Header.Set("Content-Type", contentType)
						req.Header.Set("Accept", "application/json")
						req.Header.Set("X-User", userName)
						w := httptest.NewRecorder()
						chain.ServeHTTP(w, req)
						answer := w.Body.String()
						if w.Code != http.StatusCreated {
							t.Errorf("%s, round %d: %d %s", userName, round, w.Code, answer)
							return
						}
						if strings.Count(answer, value) != 2 || strings.Count(answer, "v-") != 2 {
							t.Errorf("%s, round %d: the answer does not hold %q exactly twice, and nothing else:\n%.300s", userName, round, value, answer)
						}
					}
				})
			}
			wg.Wait()
			if withAdmission && admit.asked.Load() != 2*users*rounds {
				t.Errorf("admission was asked %d times, want %d (mutating and validating, each request)", admit.asked.Load(), 2*users*rounds)
			}
			if admit.wrong.Load() > 0 {
				t.Errorf("%d admissions were asked about another request: first %s", admit.wrong.Load(), admit.first)
			}
		})
	}
}

// TestFilteredHeadersAreTheRequestsOwn: the Content-Length and Content-Type the body filter
// sets are held in the request's own filteredBody. Requests at once, each writing its own mark
// into the header values it was given and reading them back after the others ran, must find
// their own length, type and mark: header values another request shares (a slice of the
// package, or of a body given back and taken again) show another's mark, or race.
func TestFilteredHeadersAreTheRequestsOwn(t *testing.T) {
	budget := renderrest.NewBudget(1<<30, 1<<29, nil)
	var marks atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		read, _ := io.ReadAll(r.Body)
		lengths, types := r.Header["Content-Length"], r.Header["Content-Type"]
		if len(lengths) != 1 || lengths[0] != strconv.Itoa(len(read)) || r.ContentLength != int64(len(read)) {
			t.Errorf("Content-Length %q (%d) for a body of %d bytes", lengths, r.ContentLength, len(read))
		}
		if len(types) != 1 || types[0] != "application/json" {
			t.Errorf("Content-Type %q, want JSON", types)
		}
		mark := strconv.FormatInt(marks.Add(1), 10)
		lengths[0], types[0] = "length "+mark, "type "+mark
		for range 3 {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		if r.Header["Content-Length"][0] != "length "+mark || r.Header["Content-Type"][0] != "type "+mark {
			t.Errorf("the headers of the request marked %s now read %q and %q", mark, r.Header["Content-Length"], r.Header["Content-Type"])
		}
		w.WriteHeader(http.StatusCreated)
	})
	chain := bodyChain(budget, time.Minute, 3<<20, handler)
	var wg sync.WaitGroup
	for u := range 8 {
		wg.Go(func() {
			for round := range 25 {
				contentType, data := "application/json", fmt.Sprintf(`{"kind":"Template","u":%d,"pad":%q}`, u, strings.Repeat("z", 37*round))
				if round%2 == 1 {
					contentType, data = "application/yaml", fmt.Sprintf("kind: Template\nu: %d\npad: %s\n", u, strings.Repeat("z", 37*round))
				}
				if w := post(t, chain, contentType, strings.NewReader(data)); w.Code != http.StatusCreated {
					t.Errorf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
	wg.Wait()
}
