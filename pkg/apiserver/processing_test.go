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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
)

// recordingStorage is processedtemplates' storage to the router, recording what it is given.
type recordingStorage struct {
	*processedtemplate.REST
	got *templates.Template
}

func (s *recordingStorage) Create(_ context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	s.got = obj.(*templates.Template)
	return &v1alpha1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"},
		Items: []runtime.RawExtension{{Raw: []byte(`{"kind":"ConfigMap","data":{"a":"<b>"}}`)}}}, nil
}

// serveProcessing sends a POST of body to processedtemplates in namespace demo through the
// processing routes, as the server's filters hand it on.
func serveProcessing(t *testing.T, p *processingRoutes, path, contentType, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	req = req.WithContext(request.WithUser(req.Context(), &user.DefaultInfo{Name: "alice"}))
	w := httptest.NewRecorder()
	filters.WithRequestInfo(p, &request.RequestInfoFactory{APIPrefixes: sets.NewString("apis"), GrouplessAPIPrefixes: sets.NewString("api")}).ServeHTTP(w, req)
	return w
}

// TestProcessingRecordsNoManagedFields checks the processing route: the request's Template
// reaches the storage decoded, with no managed fields recorded on it (processing stores
// nothing), and the answer is the List written by templateCodec; other requests pass on.
func TestProcessingRecordsNoManagedFields(t *testing.T) {
	storage := &recordingStorage{REST: processedtemplate.NewREST(nil)}
	passed := false
	p := &processingRoutes{next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { passed = true })}
	codecs := Served
	if err := p.add(v1alpha1.SchemeGroupVersion, "processedtemplates", storage, processingScope{serializer: codecs, maxBodyBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	body := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t","namespace":"demo"},` +
		`"parameters":[{"name":"A","value":"1"}],"objects":[{"kind":"ConfigMap","metadata":{"name":"${A}"}}]}`
	w := serveProcessing(t, p, "/apis/templates.stencil.dev/v1alpha1/namespaces/demo/processedtemplates", "application/json", body)
	if w.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", w.Code, w.Body.String())
	}
	if want := "{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":{},\"items\":[{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"\\u003cb\\u003e\"}}]}\n"; w.Body.String() != want {
		t.Errorf("answer %q, want %q", w.Body.String(), want)
	}
	if storage.got == nil || storage.got.Name != "t" || len(storage.got.Objects) != 1 || len(storage.got.Parameters) != 1 {
		t.Fatalf("the storage got %+v", storage.got)
	}
	if storage.got.ManagedFields != nil {
		t.Errorf("processing recorded managed fields: %+v", storage.got.ManagedFields)
	}

	// The namespace of the body must be the request's, as for any create.
	w = serveProcessing(t, p, "/apis/templates.stencil.dev/v1alpha1/namespaces/other/processedtemplates", "application/json", body)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "does not match the namespace") {
		t.Errorf("another namespace: status %d: %s", w.Code, w.Body.String())
	}
	// A strict decoder's word is the create handler's: a warning by default.
	w = serveProcessing(t, p, "/apis/templates.stencil.dev/v1alpha1/namespaces/demo/processedtemplates", "application/json",
		strings.Replace(body, `"kind":"Template",`, `"kind":"Template","unknown":1,`, 1))
	if w.Code != http.StatusCreated {
		t.Errorf("an unknown member: status %d: %s", w.Code, w.Body.String())
	}
	// Anything else is the installer's routes'.
	for _, path := range []string{"/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templates",
		"/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templates/t/processed", "/apis/templates.stencil.dev/v1alpha1/namespaces/demo/processedtemplates/x"} {
		passed = false
		serveProcessing(t, p, path, "application/json", body)
		if !passed {
			t.Errorf("POST %s was not passed on", path)
		}
	}
}

// TestNothingStoredHasNoMetadata checks what the field manager is given as the live object of
// a processing request: an object without metadata, which it leaves alone.
func TestNothingStoredHasNoMetadata(t *testing.T) {
	kind := v1alpha1.SchemeGroupVersion.WithKind("ProcessedTemplate")
	c := noLiveObject{ObjectCreater: Scheme, kind: kind}
	live, err := c.New(kind)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := live.(metav1.Object); ok {
		t.Fatal("the live object of a processing request has metadata")
	}
	other, err := c.New(schema.GroupVersionKind{Group: v1alpha1.GroupName, Version: "v1alpha1", Kind: "Template"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := other.(*v1alpha1.Template); !ok {
		t.Fatalf("another kind gave %T", other)
	}
}
