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
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTemplateInstanceSize sends TemplateInstances too large for etcd through both groups
// (issue 24: a 1.5 to 2.9 MB inline template was a 500 "request is too large"): each is a 422
// naming the field and the limit, on create, dry run, replace and patch alike, and an
// instance's parametersFrom is bounded (10,000 sources were stored).
func TestTemplateInstanceSize(t *testing.T) {
	s := startTestServer(t, t.TempDir(), "--openshift-templates")
	rc := s.client(t).Discovery().RESTClient()
	inline := func(size int) string {
		return `{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"big"},"objects":[` +
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"` + strings.Repeat("v", size) + `"}}]}`
	}
	ours := func(name, spec string) string {
		return `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"TemplateInstance","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
	}
	theirs := func(name string, size int) string {
		return `{"apiVersion":"template.openshift.io/v1","kind":"TemplateInstance","metadata":{"name":"` + name + `"},"spec":{"template":` + inline(size) + `}}`
	}
	sources := func(n int) string {
		list := make([]string, n)
		for i := range list {
			list[i] = fmt.Sprintf(`{"secretRef":{"name":"values-%d"}}`, i)
		}
		return `[` + strings.Join(list, ",") + `]`
	}
	// Stored first, to be replaced and patched.
	for _, f := range []struct{ path, body string }{
		{ourInstances, ours("small", `{"template":`+inline(10)+`}`)},
		{openshiftInstances, theirs("small-os", 10)},
	} {
		if status, body := rawCall(t, rc, "POST", f.path, ctJSON, "", []byte(f.body)); status != http.StatusCreated {
			t.Fatalf("storing %s: %d %.300s", f.path, status, body)
		}
	}
	cases := []struct {
		name, verb, path, contentType, body string
		want                                int
		field                               string // of the one cause of a 422
	}{
		{"inline template of 1.6 MB", "POST", ourInstances, ctJSON, ours("big1", `{"template":`+inline(1_600_000)+`}`), 422, "spec.template"},
		{"inline template of 2.9 MB, dry run", "POST", ourInstances + "?dryRun=All", ctJSON, ours("big2", `{"template":`+inline(2_900_000)+`}`), 422, "spec.template"},
		{"replacing with 1.1 MB", "PUT", ourInstances + "/small", ctJSON, ours("small", `{"template":`+inline(1_100_000)+`}`), 422, "spec.template"},
		{"merge patch of parameters past 1 MiB", "PATCH", ourInstances + "/small", ctMergePatch, `{"spec":{"parameters":{"P":"` + strings.Repeat("x", 1_100_000) + `"}}}`, 422, "spec.parameters"},
		{"OpenShift's group, 1.6 MB", "POST", openshiftInstances, ctJSON, theirs("big3", 1_600_000), 422, "spec.template"},
		{"OpenShift's group, 2.9 MB", "POST", openshiftInstances, ctJSON, theirs("big4", 2_900_000), 422, "spec.template"},
		{"OpenShift's group, merge patch past 1 MiB", "PATCH", openshiftInstances + "/small-os", ctMergePatch, `{"spec":{"template":` + inline(1_100_000) + `}}`, 422, "spec.template"},
		{"16 parametersFrom", "POST", ourInstances, ctJSON, ours("sources16", `{"templateRef":{"name":"t"},"parametersFrom":`+sources(16)+`}`), 201, ""},
		{"17 parametersFrom", "POST", ourInstances, ctJSON, ours("sources17", `{"templateRef":{"name":"t"},"parametersFrom":`+sources(17)+`}`), 422, "spec.parametersFrom"},
		{"10,000 parametersFrom", "POST", ourInstances, ctJSON, ours("sources10k", `{"templateRef":{"name":"t"},"parametersFrom":`+sources(10_000)+`}`), 422, "spec.parametersFrom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := rawCall(t, rc, tc.verb, tc.path, tc.contentType, "", []byte(tc.body))
			if status != tc.want {
				t.Fatalf("status %d, want %d: %.400s", status, tc.want, body)
			}
			if tc.want != 422 {
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil || st.Details == nil || len(st.Details.Causes) != 1 {
				t.Fatalf("want one cause: %v %.400s", err, body)
			}
			cause := st.Details.Causes[0]
			limit := "at most 1048576 bytes"
			if tc.field == "spec.parametersFrom" {
				limit = "at most 16 items"
			}
			if cause.Field != tc.field || !strings.Contains(cause.Message, limit) {
				t.Errorf("cause %s %q, want %s stating %q", cause.Field, cause.Message, tc.field, limit)
			}
		})
	}
}
