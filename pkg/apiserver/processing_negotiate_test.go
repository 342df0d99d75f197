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
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// TestNegotiationsBounded sends requests with many Accept headers, and long ones: the
// negotiations the handler keeps stay within their bound, in count and in bytes, and every
// request is answered as the create handler answers it.
func TestNegotiationsBounded(t *testing.T) {
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{})))
	long := "application/json, " + strings.Repeat("text/x-long, ", 100)
	for i := range 3 * maxNegotiations {
		c := processingCase{contentType: "application/json", accept: fmt.Sprintf("application/json, text/x-%d", i), body: stencilTemplate}
		if i%2 == 1 {
			c.accept = long + c.accept
		}
		fast, generic := httptest.NewRecorder(), httptest.NewRecorder()
		pair.fast.ServeHTTP(fast, c.request(v1alpha1.SchemeGroupVersion))
		pair.generic.ServeHTTP(generic, c.request(v1alpha1.SchemeGroupVersion))
		if fast.Code != http.StatusCreated || fast.Body.String() != generic.Body.String() {
			t.Fatalf("%.40s: %d %s, the create handler %d %s", c.accept, fast.Code, fast.Body, generic.Code, generic.Body)
		}
	}
	kept, bytes := len(pair.fastHandler.negotiations.byAccept), 0
	for accept := range pair.fastHandler.negotiations.byAccept {
		bytes += len(accept)
	}
	if kept != maxNegotiations || bytes > maxNegotiations*maxNegotiatedAccept {
		t.Errorf("%d negotiations of %d bytes kept, want %d of at most %d", kept, bytes, maxNegotiations, maxNegotiations*maxNegotiatedAccept)
	}
}

// TestHeaderValueIsGet checks headerValue against Header.Get on a request as net/http reads it
// off the wire (names in any case, repeated, empty) and on headers set by Set and Add.
func TestHeaderValueIsGet(t *testing.T) {
	raw := "POST /x HTTP/1.1\r\nHost: h\r\ncontent-type: application/yaml\r\nACCEPT: a\r\nAccept: b\r\n" +
		"uSeR-aGeNt: curl/8\r\nContent-Length: 0\r\nx-empty:\r\n\r\n"
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Add("vary", "1")
	req.Header.Set("content-length", "5")
	for _, key := range []string{"Content-Type", "Accept", "User-Agent", "Content-Length", "X-Empty", "Vary", "Missing"} {
		if got, want := headerValue(req.Header, key), req.Header.Get(key); got != want {
			t.Errorf("%s: headerValue %q, Get %q", key, got, want)
		}
	}
}
