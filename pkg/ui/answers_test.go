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
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// response is what the proxy gets back from the cluster for method path.
func response(method, path string, code int, body string) *http.Response {
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)),
		Request: httptest.NewRequest(method, path, nil)}
}

// TestAnswersRecordOnlyWhatIsApplied: only the successful answer of a processing request that
// is not a dry run is kept and named; the body passes on unchanged either way; an answer
// larger than an apply may be is passed without an id.
func TestAnswersRecordOnlyWhatIsApplied(t *testing.T) {
	const processed = "/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templates/app/processed"
	list := `{"kind":"List","apiVersion":"v1","items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}]}`
	large := `{"kind":"List","apiVersion":"v1","items":[{"kind":"ConfigMap","apiVersion":"v1","data":{"a":"` + strings.Repeat("x", maxActionBody) + `"}}]}`
	cases := []struct {
		name   string
		resp   *http.Response
		body   string
		wantID bool
	}{
		{"an answer to apply", response("POST", processed, 201, list), list, true},
		{"a preview", response("POST", processed+"?dryRun=All", 201, list), list, false},
		{"a refusal", response("POST", processed, 422, `{"kind":"Status"}`), `{"kind":"Status"}`, false},
		{"another path", response("POST", "/apis/templates.stencil.dev/v1alpha1/namespaces/demo/templateinstances", 201, list), list, false},
		{"an answer too large to apply", response("POST", processed, 201, large), large, false},
	}
	s := newAnswers()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.record(tc.resp); err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(tc.resp.Body)
			if string(body) != tc.body {
				t.Fatalf("the body changed on its way: %.100s", body)
			}
			id := tc.resp.Header.Get(AnswerHeader)
			if (id != "") != tc.wantID {
				t.Fatalf("id %q, want one: %v", id, tc.wantID)
			}
			if objects, ok := s.get(id); tc.wantID && (!ok || len(objects) != 1) {
				t.Fatalf("the answer kept under %q: %v %s", id, ok, objects)
			}
		})
	}
}

// TestAnswersAreBounded: the oldest answers go first past maxAnswers.
func TestAnswersAreBounded(t *testing.T) {
	s := newAnswers()
	var ids []string
	for i := range maxAnswers + 1 {
		id, err := s.add(nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if _, dup := s.get(fmt.Sprint(i)); dup {
			t.Fatal("an id was guessable")
		}
	}
	if _, ok := s.get(ids[0]); ok {
		t.Errorf("the oldest answer is still kept past %d", maxAnswers)
	}
	if _, ok := s.get(ids[maxAnswers]); !ok {
		t.Errorf("the newest answer is not kept")
	}
}
