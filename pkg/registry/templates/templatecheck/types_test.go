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

package templatecheck

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kubeschemas"
)

// stuck is a cluster that never answers.
type stuck struct{}

func (stuck) Resolve(ctx context.Context, _ typecheck.GroupVersionKind) (typecheck.Resolution, error) {
	<-ctx.Done()
	return typecheck.Resolution{}, ctx.Err()
}

const typeErrors = `{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "t"},
  "parameters": [{"name": "N", "type": "number", "value": "1"}],
  "objects": [
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"replica": 1, "replicas": "${{N}}", "selector": {}, "template": {"spec": {"containers": [{"name": "c"}]}}}},
    {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}]}`

// TestTypes: in warn mode every finding is a warning; with Refuse the errors are field
// errors at their paths and the warnings stay warnings; notes are neither; a cluster that
// does not answer leaves the template unchecked within the timeout.
func TestTypes(t *testing.T) {
	tmpl, _, err := process.DecodeTemplate([]byte(typeErrors))
	if err != nil {
		t.Fatal(err)
	}
	checker, err := kubeschemas.Checker(nil)
	if err != nil {
		t.Fatal(err)
	}
	errs, warnings := (&Types{Checker: checker}).Check(context.Background(), tmpl)
	if len(errs) != 0 || len(warnings) != 2 || !strings.HasPrefix(warnings[0], `objects[0].spec.replica: unknown field "replica"`) ||
		!strings.HasPrefix(warnings[1], "objects[0].spec.replicas: ${{N}} writes N, a number parameter") {
		t.Errorf("warn: %v, %q", errs, warnings)
	}
	errs, warnings = (&Types{Checker: checker, Refuse: true}).Check(context.Background(), tmpl)
	if len(errs) != 1 || errs[0].Field != "objects[0].spec.replica" || !strings.Contains(errs[0].Error(), `unknown field "replica" of Deployment (apps/v1)`) ||
		len(warnings) != 1 {
		t.Errorf("refuse: %v, %q", errs, warnings)
	}
	// Without its timeout the check would wait for the stuck cluster as long as the test runs.
	errs, warnings = (&Types{Checker: &typecheck.Checker{Resolver: stuck{}}, Refuse: true, Timeout: 50 * time.Millisecond}).Check(context.Background(), tmpl)
	if len(errs) != 0 || len(warnings) != 0 {
		t.Errorf("a cluster that does not answer: %v, %q", errs, warnings)
	}
}

// TestTypesHostileGroups: an author who writes a template of 500 objects, each of a group no
// cluster serves, cannot make one write ask the cluster 500 times: the index of group
// versions is read again at most once per few seconds, and no document is read.
func TestTypesHostileGroups(t *testing.T) {
	var indexReads, docReads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi/v3" {
			indexReads.Add(1)
			fmt.Fprint(w, `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=1"}}}`)
			return
		}
		docReads.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	fetch := func(ctx context.Context, path string) (io.ReadCloser, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
	var objects []string
	for i := 0; i < 500; i++ {
		objects = append(objects, fmt.Sprintf(`{"apiVersion": "g%d.example.com/v1", "kind": "K", "metadata": {"name": "o%d"}}`, i, i))
	}
	tmpl, _, err := process.DecodeTemplate([]byte(`{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "t"}, "objects": [` +
		strings.Join(objects, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	types := &Types{Checker: &typecheck.Checker{Resolver: &typecheck.Cluster{Fetch: fetch}}}
	for write := 0; write < 3; write++ {
		errs, warnings := types.Check(context.Background(), tmpl)
		if len(errs) != 0 || len(warnings) != 0 {
			t.Fatalf("%v %q", errs, warnings)
		}
	}
	if indexReads.Load() > 2 || docReads.Load() != 0 {
		t.Errorf("three writes of 500 made-up groups: the index read %d times, documents %d", indexReads.Load(), docReads.Load())
	}
}
