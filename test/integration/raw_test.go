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

package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// The content types a request body can have.
const (
	ctJSON       = "application/json"
	ctYAML       = "application/yaml"
	ctMergePatch = "application/merge-patch+json"
	ctJSONPatch  = "application/json-patch+json"
	ctStrategic  = "application/strategic-merge-patch+json"
	ctApply      = "application/apply-patch+yaml"
)

// apiPath is the path of the group's resources in namespace ns.
func apiPath(ns, rest string) string {
	return "/apis/templates.stencil.dev/v1alpha1/namespaces/" + ns + "/" + rest
}

// rawResponse is what the server answered to one raw request.
type rawResponse struct {
	status     int
	body       []byte
	retryAfter string
}

// status decodes the answer as a metav1.Status; ok is false when it is not one.
func (r rawResponse) apiStatus() (metav1.Status, bool) {
	var st metav1.Status
	err := json.Unmarshal(r.body, &st)
	return st, err == nil && st.Kind == "Status"
}

// causes lists the answer's causes as "field: reason".
func (r rawResponse) causes() []string {
	st, ok := r.apiStatus()
	if !ok || st.Details == nil {
		return nil
	}
	var out []string
	for _, c := range st.Details.Causes {
		out = append(out, c.Field+": "+string(c.Type))
	}
	return out
}

// httpClient returns a client that logs in to s as its local administrator, without the
// retries and content negotiation of client-go, so that a test sees exactly what the server
// answers to exactly the bytes it sent.
func (s *localServer) httpClient(t testing.TB) *http.Client {
	t.Helper()
	transport, err := rest.TransportFor(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: transport}
}

// do sends one request to s. An error means the server gave no answer at all (a panic
// resets the connection), which the callers count as a failure of the server.
func (s *localServer) do(ctx context.Context, client *http.Client, method, path, contentType string, body []byte) (rawResponse, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(s.Config.Host, "/")+path, bytes.NewReader(body))
	if err != nil {
		return rawResponse{}, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return rawResponse{}, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return rawResponse{}, err
	}
	return rawResponse{status: resp.StatusCode, body: answer, retryAfter: resp.Header.Get("Retry-After")}, nil
}

// mustDo is do for tests that need an answer to go on.
func (s *localServer) mustDo(t *testing.T, method, path, contentType string, body []byte) rawResponse {
	t.Helper()
	resp, err := s.do(context.Background(), s.httpClient(t), method, path, contentType, body)
	if err != nil {
		t.Fatalf("%s %s: no answer: %v", method, path, err)
	}
	return resp
}

// logMentions reports the lines of the server's log that contain any of words.
func (s *localServer) logMentions(t testing.TB, words ...string) []string {
	t.Helper()
	log, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(log), "\n") {
		for _, w := range words {
			if strings.Contains(line, w) {
				out = append(out, line)
				break
			}
		}
	}
	return out
}

// TestNoProtobufOffered: no type of ours has a protobuf encoding, so the groups do not offer
// it, as the API server does not for custom resources. A client that asks for protobuf first
// gets the JSON it also accepts; one that asks for protobuf alone, a 406; a protobuf body, a
// 415. Offered, every such answer was a 500.
func TestNoProtobufOffered(t *testing.T) {
	rc := shared.client(t).Discovery().RESTClient()
	const list = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates"
	body := []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}]}`)
	for _, c := range []struct {
		name, verb, path, contentType, accept string
		body                                  []byte
		want                                  int
	}{
		{"list, protobuf or JSON", "GET", list, "", "application/vnd.kubernetes.protobuf, application/json", nil, http.StatusOK},
		{"list, protobuf alone", "GET", list, "", "application/vnd.kubernetes.protobuf", nil, http.StatusNotAcceptable},
		{"process, protobuf or JSON", "POST", apiPath("default", "processedtemplates"), ctJSON, "application/vnd.kubernetes.protobuf,application/json", body, http.StatusCreated},
		{"process, protobuf alone", "POST", apiPath("default", "processedtemplates"), ctJSON, "application/vnd.kubernetes.protobuf", body, http.StatusNotAcceptable},
		{"process, a protobuf body", "POST", apiPath("default", "processedtemplates"), "application/vnd.kubernetes.protobuf", "", body, http.StatusUnsupportedMediaType},
	} {
		status, answer := rawCall(t, rc, c.verb, c.path, c.contentType, c.accept, c.body)
		if status != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, status, c.want, answer)
		}
		if status < 300 && !json.Valid(answer) {
			t.Errorf("%s: the answer is not JSON: %.80q", c.name, answer)
		}
	}
}
