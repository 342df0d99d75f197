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
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// countingStorage counts the requests that reached processing.
type countingStorage struct {
	processingStorage
	calls atomic.Int32
}

func (s *countingStorage) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	s.calls.Add(1)
	return s.processingStorage.Create(ctx, obj, validate, options)
}

// TestProcessingHandlerHostile attacks the processing handler with what a client could send
// to tie up the server: a body past the limit and a body nested as deep as the decoders go
// are answered as the create handler answers them (413 and 400 or 422), the first without
// processing; a client that sends its body a byte at a time is cut at its request's deadline,
// before any processing, and holds no memory after it.
func TestProcessingHandlerHostile(t *testing.T) {
	storage := &countingStorage{processingStorage: processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{}))}
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, storage)
	oversized := strings.Replace(stencilTemplate, `"data":{"a":"<b>&"}`, `"data":{"a":"`+strings.Repeat("x", 2<<20)+`"}`, 1)
	nested := strings.Replace(stencilTemplate, `"data":{"a":"<b>&"}`, `"data":{"a":"b"},"spec":`+strings.Repeat(`[`, 20000)+strings.Repeat(`]`, 20000), 1)
	deep := strings.Replace(stencilTemplate, `"data":{"a":"<b>&"}`, `"data":{"a":"b"},"spec":`+strings.Repeat(`{"a":`, 500)+"1"+strings.Repeat(`}`, 500), 1)
	nestedYAML := stencilYAML + "  spec: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"
	for _, c := range []struct {
		name, contentType, body string
		status                  int
		processed               bool
	}{
		{"oversized", "application/json", oversized, http.StatusRequestEntityTooLarge, false},
		{"nested", "application/json", nested, 0, false},
		{"nested yaml", "application/yaml", nestedYAML, 0, false},
		{"deep but within bounds", "application/json", deep, http.StatusCreated, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := storage.calls.Load()
			fast, generic := httptest.NewRecorder(), httptest.NewRecorder()
			req := processingCase{contentType: c.contentType, accept: "application/json", body: c.body}
			pair.fast.ServeHTTP(fast, req.request(v1alpha1.SchemeGroupVersion))
			pair.generic.ServeHTTP(generic, req.request(v1alpha1.SchemeGroupVersion))
			if fast.Code != generic.Code || fast.Body.String() != generic.Body.String() {
				t.Errorf("the processing handler answered %d:\n%.300s\nthe create handler %d:\n%.300s", fast.Code, fast.Body, generic.Code, generic.Body)
			}
			if c.status != 0 && fast.Code != c.status {
				t.Errorf("status %d, want %d: %.300s", fast.Code, c.status, fast.Body)
			}
			if fast.Code < 400 && !c.processed {
				t.Errorf("status %d: a hostile body was taken", fast.Code)
			}
			if processed := storage.calls.Load() > calls; processed != c.processed {
				t.Errorf("processed: %v, want %v", processed, c.processed)
			}
		})
	}

	// A slow client, over a real connection, with the request's deadline the server's filters
	// set: its body is cut at the deadline and nothing is processed.
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 300*time.Millisecond)
		defer cancel()
		pair.fast.ServeHTTP(w, r.WithContext(ctx))
	}))
	server.EnableHTTP2 = true
	server.StartTLS()
	defer server.Close()
	calls := storage.calls.Load()
	body := &slowBody{interval: 50 * time.Millisecond}
	defer body.Close()
	req, _ := http.NewRequest(http.MethodPost, server.URL+"/apis/templates.stencil.dev/v1alpha1/namespaces/demo/processedtemplates", body)
	req.ContentLength = 1 << 10
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := server.Client().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if took := time.Since(start); took > writeGrace+3*time.Second {
		t.Errorf("a slow client was served for %v, past its 300 ms deadline and the write grace", took)
	}
	if storage.calls.Load() != calls {
		t.Error("a slow client's body was processed")
	}
}
