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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// The JSON body of a processing POST is given back to the pools once the processing handler
// has answered it (body_finish.go). These tests attack that: a buffer used again too early
// shows as another request's bytes in an answer, or as a race.

// finishingTemplate is a Template of its own for request id: its name, a parameter and an
// object's data are id's, the data padded to about size bytes (one size class for all); with
// bad, a transformer is a string that is not an object, a 422 whose causes quote it.
func finishingTemplate(id string, size int, bad bool) string {
	pad := strings.Repeat(id[:1], max(size-300, 0))
	object := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c-${P}"},"data":{"id":"` + id + `","pad":"` + pad + `"}}`
	transformers := ""
	if bad {
		transformers = `"transformers":["quoted-` + id + `"],`
	}
	return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t-` + id + `","namespace":"demo"},` +
		`"parameters":[{"name":"P","value":"` + id + `"}],` + transformers + `"objects":[` + object + `]}`
}

// finishingYAML is finishingTemplate's Template (not bad) in YAML, which the body filter
// converts to JSON.
func finishingYAML(id string, size int) string {
	pad := strings.Repeat(id[:1], max(size-300, 0))
	return "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: t-" + id + "\n  namespace: demo\n" +
		"parameters:\n- name: P\n  value: \"" + id + "\"\nobjects:\n- kind: ConfigMap\n  apiVersion: v1\n  metadata:\n    name: c-${P}\n" +
		"  data:\n    id: \"" + id + "\"\n    pad: " + pad + "\n"
}

// TestFinishedBodiesConcurrently sends many processing requests at once, each its own
// Template (JSON, YAML, and 422s whose causes quote the template), all of one size class, so
// that each buffer given back serves another request next: each answer must be the one the
// create handler (which never gives a body back) gives for that Template, byte for byte, and,
// under the race detector, no two requests touch one buffer at once.
func TestFinishedBodiesConcurrently(t *testing.T) {
	storage := processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{}))
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, storage)
	var givenBack atomic.Int32
	pair.fastBodies.finishedGivenBack = func() { givenBack.Add(1) }
	type request struct {
		c    processingCase
		want string
		code int
	}
	const clients, each = 8, 24
	requests := make([][]request, clients)
	for client := range clients {
		for i := range each {
			id := fmt.Sprintf("%c%d-%d", 'a'+client, client, i)
			size := 5000 + 37*i // one class: 8 KiB
			c := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(id, size, i%3 == 2)}
			if i%4 == 1 {
				c.contentType, c.body = "application/yaml", finishingYAML(id, size)
			}
			w := httptest.NewRecorder()
			pair.generic.ServeHTTP(w, c.request(v1alpha1.SchemeGroupVersion))
			if !strings.Contains(w.Body.String(), id) {
				t.Fatalf("the create handler's answer does not name %s: %d %.300s", id, w.Code, w.Body)
			}
			requests[client] = append(requests[client], request{c: c, want: w.Body.String(), code: w.Code})
		}
	}
	var wg sync.WaitGroup
	for client := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range requests[client] {
				w := httptest.NewRecorder()
				pair.fast.ServeHTTP(w, r.c.request(v1alpha1.SchemeGroupVersion))
				if w.Code != r.code || w.Body.String() != r.want {
					t.Errorf("answered %d:\n%.400s\nwant %d:\n%.400s", w.Code, w.Body, r.code, r.want)
					return
				}
			}
		}()
	}
	wg.Wait()
	if pair.handedOn.Load() != 0 {
		t.Errorf("%d requests handed on to the create handler", pair.handedOn.Load())
	}
	// Every body (a YAML body's JSON), the 422s' included, was given back: the test tried
	// what it meant to.
	if got, want := givenBack.Load(), int32(clients*each); got != want {
		t.Errorf("%d bodies given back, want %d", got, want)
	}
}

// holdingStorage is processing that, for a Template whose name says "late", waits for the
// request's end and then keeps reading the Template's objects in a goroutine of its own, as
// work that outlives its request would: what it read comes back on held.
type holdingStorage struct {
	processingStorage
	held chan error
}

func (s *holdingStorage) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	t := obj.(*templates.Template)
	if !strings.Contains(t.Name, "late") {
		return s.processingStorage.Create(ctx, obj, validate, options)
	}
	<-ctx.Done()
	raw := t.Objects[0].Raw
	was := bytes.Clone(raw)
	go func() {
		time.Sleep(300 * time.Millisecond)
		if !bytes.Equal(raw, was) {
			s.held <- fmt.Errorf("the objects of a request cut by its deadline changed after it: %.80q, were %.80q", raw, was)
			return
		}
		s.held <- nil
	}()
	return s.processingStorage.Create(ctx, obj, validate, options)
}

// TestBodyOfALateRequestIsKept cuts a request's processing at its deadline (the 504 the
// processing handler answers then): its body is not given back, so that work it started that
// still reads the body after the answer (here a goroutine of the storage's) never reads
// another request's bytes, though requests of the same size class follow at once.
func TestBodyOfALateRequestIsKept(t *testing.T) {
	storage := &holdingStorage{processingStorage: processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{})), held: make(chan error, 1)}
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, storage)
	var givenBack atomic.Int32
	pair.fastBodies.finishedGivenBack = func() { givenBack.Add(1) }
	withDeadline := func(timeout time.Duration) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			pair.fast.ServeHTTP(w, r.WithContext(ctx))
		})
	}
	late := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate("late", 6000, false)}
	w := httptest.NewRecorder()
	withDeadline(100*time.Millisecond).ServeHTTP(w, late.request(v1alpha1.SchemeGroupVersion))
	if w.Code != http.StatusGatewayTimeout {
		t.Fatalf("a request cut by its deadline: %d %.300s, want 504", w.Code, w.Body)
	}
	if givenBack.Load() != 0 {
		t.Fatal("the body of a request cut by its deadline was given back")
	}
	// Requests of the same size class, in time, take buffers from the pools (and give theirs
	// back) while the late request's work still reads its body.
	for i := range 40 {
		id := fmt.Sprintf("z%d", i)
		c := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(id, 6000, false)}
		w := httptest.NewRecorder()
		withDeadline(time.Minute).ServeHTTP(w, c.request(v1alpha1.SchemeGroupVersion))
		if w.Code != http.StatusCreated || !strings.Contains(w.Body.String(), `"id":"`+id+`"`) {
			t.Fatalf("%d %.300s", w.Code, w.Body)
		}
	}
	if givenBack.Load() != 40 {
		t.Errorf("%d bodies of requests served in time given back, want 40", givenBack.Load())
	}
	if err := <-storage.held; err != nil {
		t.Error(err)
	}
}

// TestRefusalQuotesItsOwnBody checks a 422 whose causes quote the template's text, its body
// given back: its answer quotes its own text, and once the next request (of the same size
// class, so likely in the same buffer) is served, the answer written for the first has not
// changed and holds none of the next one's bytes.
func TestRefusalQuotesItsOwnBody(t *testing.T) {
	storage := processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{}))
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, storage)
	var givenBack atomic.Int32
	pair.fastBodies.finishedGivenBack = func() { givenBack.Add(1) }
	var previous *httptest.ResponseRecorder
	var previousAnswer, previousID string
	for i := range 30 {
		id := fmt.Sprintf("%c%d", 'a'+i%26, i)
		bad := i%2 == 0
		c := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(id, 7000, bad)}
		w := httptest.NewRecorder()
		given := givenBack.Load()
		pair.fast.ServeHTTP(w, c.request(v1alpha1.SchemeGroupVersion))
		if givenBack.Load() == given {
			t.Fatalf("request %d: its body was not given back", i)
		}
		if bad {
			if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `quoted-`+id) {
				t.Fatalf("a refusal that quotes its template: %d %.500s", w.Code, w.Body)
			}
		} else if w.Code != http.StatusCreated {
			t.Fatalf("%d %.300s", w.Code, w.Body)
		}
		if previous != nil {
			if previous.Body.String() != previousAnswer || strings.Contains(previousAnswer, id) {
				t.Errorf("the answer to %s changed or holds %s's bytes: %.500s", previousID, id, previous.Body)
			}
		}
		previous, previousAnswer, previousID = w, w.Body.String(), id
	}
}

// TestFinishedBodyIsForgotten checks what the body filter does with a body finished: a
// handler that kept the request and reads its body after answering reads nothing (not another
// request's bytes); a body no handler may finish (mayFinish false, nil) is never given back,
// whatever the handler says.
func TestFinishedBodyIsForgotten(t *testing.T) {
	budget := renderrest.NewBudget(1<<30, 1<<29, nil)
	for _, mayFinish := range []func(*http.Request) bool{func(*http.Request) bool { return true }, func(*http.Request) bool { return false }, nil} {
		var kept *http.Request
		inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			kept = r
			finishBody(r)
			w.WriteHeader(http.StatusCreated)
		})
		bodies := withBodies(inner, 3<<20, Codecs, mayFinish).(*bodyReader)
		var givenBack atomic.Int32
		bodies.finishedGivenBack = func() { givenBack.Add(1) }
		chain := budget.HoldUntilWritten(bodies)
		body := `{"kind":"Template","value":"` + strings.Repeat("v", 3000) + `"}`
		if w := post(t, chain, "application/json", strings.NewReader(body)); w.Code != http.StatusCreated {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		finishes := mayFinish != nil && mayFinish(kept)
		if got := givenBack.Load() == 1; got != finishes {
			t.Errorf("given back: %v, want %v", got, finishes)
		}
		data, read := bodyBytes(kept)
		if finishes && len(data) != 0 {
			t.Errorf("a body given back still reads %d bytes", len(data))
		}
		if !finishes && (!read || string(data) != body) {
			t.Errorf("a body not given back reads %.80q", data)
		}
	}
}
