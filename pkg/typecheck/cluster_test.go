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

package typecheck_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/typecheck"
)

// httpFetch is a Fetch over plain HTTP, as the REST client's is over the cluster's.
func httpFetch(base string) typecheck.Fetch {
	return func(ctx context.Context, path string) (io.ReadCloser, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("%s", resp.Status)
		}
		return resp.Body, nil
	}
}

// widgetDoc is a group version's document with one kind.
func widgetDoc(version, required string) string {
	return `{"openapi": "3.0.0", "components": {"schemas": {"com.example.` + version + `.Widget": {"type": "object",
  "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "` + version + `", "kind": "Widget"}],
  "required": ["` + required + `"], "properties": {"spec": {"type": "object"}, "status": {"type": "object"}}}}}}`
}

// TestClusterResolves: kinds come from the document of their group version, read once per
// URL; a new index (after its TTL) with a new hash reads the document again; a kind the
// group serves in another version says which.
func TestClusterResolves(t *testing.T) {
	var hash atomic.Value
	hash.Store("1")
	var docReads, indexReads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/openapi/v3":
			indexReads.Add(1)
			fmt.Fprintf(w, `{"paths": {"apis/example.com/v1": {"serverRelativeURL": "/openapi/v3/apis/example.com/v1?hash=%s"}, "api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=0"}}}`, hash.Load())
		case "/openapi/v3/apis/example.com/v1":
			docReads.Add(1)
			required := "spec"
			if r.URL.Query().Get("hash") == "2" {
				required = "status"
			}
			fmt.Fprint(w, widgetDoc("v1", required))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	now := time.Unix(0, 0)
	c := &typecheck.Cluster{Fetch: httpFetch(srv.URL), Now: func() time.Time { return now }}
	ctx := context.Background()
	gvk := typecheck.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	for i := 0; i < 3; i++ {
		res, err := c.Resolve(ctx, gvk)
		if err != nil || res.Schema == nil || res.Schema.Required[0] != "spec" {
			t.Fatalf("resolve: %+v, %v", res, err)
		}
	}
	if n := docReads.Load(); n != 1 {
		t.Errorf("the document was read %d times", n)
	}
	hash.Store("2")
	now = now.Add(2 * typecheck.DefaultIndexTTL)
	res, err := c.Resolve(ctx, gvk)
	if err != nil || res.Schema == nil || res.Schema.Required[0] != "status" || docReads.Load() != 2 {
		t.Errorf("after the document changed: %+v, %v, %d reads", res, err, docReads.Load())
	}
	res, err = c.Resolve(ctx, typecheck.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "Widget"})
	if err != nil || res.Schema != nil || !res.GroupKnown || strings.Join(res.Versions, ",") != "v1" {
		t.Errorf("another version: %+v, %v", res, err)
	}
	reads := indexReads.Load()
	res, err = c.Resolve(ctx, typecheck.GroupVersionKind{Group: "other.io", Version: "v1", Kind: "Thing"})
	if err != nil || res.GroupKnown || indexReads.Load() != reads {
		t.Errorf("a group the cluster does not serve, asked at once: %+v, %v, index read %d times more", res, err, indexReads.Load()-reads)
	}
	// A group the index does not list makes it read again once it is a few seconds old: a
	// CRD installed since is seen without waiting for the TTL.
	now = now.Add(10 * time.Second)
	for i := 0; i < 3; i++ {
		if _, err := c.Resolve(ctx, typecheck.GroupVersionKind{Group: "other.io", Version: "v1", Kind: "Thing"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := indexReads.Load() - reads; n != 1 {
		t.Errorf("the index was read %d times for an unknown group", n)
	}
}

// TestHostileCluster: a --server that is not a Kubernetes API server, or one that answers
// slowly, endlessly or with garbage, is a clear error within the time given and within the
// memory bound; nothing hangs and nothing is read whole.
func TestHostileCluster(t *testing.T) {
	endless := func(w http.ResponseWriter, prefix string) {
		fmt.Fprint(w, prefix)
		chunk := []byte(strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 1024))
		for i := 0; i < 1<<20; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"html", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html><body>hello</body></html>") },
			"is not an OpenAPI v3 document"},
		{"empty index", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"paths": {}}`) },
			"lists no group versions"},
		{"wrong types", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"paths": ["api/v1"]}`) },
			"is not an OpenAPI v3 document"},
		{"endless index", func(w http.ResponseWriter, r *http.Request) { endless(w, `{"paths": {"a": [`) },
			"is larger than 1 MiB"},
		{"endless document", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/openapi/v3" {
				fmt.Fprint(w, `{"paths": {"apis/example.com/v1": {"serverRelativeURL": "/openapi/v3/apis/example.com/v1"}}}`)
				return
			}
			endless(w, `{"components": {"schemas": {"x": {"enum": [`)
		}, "is larger than 1 MiB"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		}, "context deadline exceeded"},
		{"error status", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) },
			"403 Forbidden"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			cluster := &typecheck.Cluster{Fetch: httpFetch(srv.URL), MaxDocumentBytes: 1 << 20, Source: "the cluster at " + srv.URL}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := cluster.Resolve(ctx, typecheck.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %v, want one naming the cluster and saying %q", err, c.want)
			}
			if c.name == "slow" && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a slow cluster: %v is not the deadline", err)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
				t.Errorf("%d MiB allocated reading a 1 MiB bound", grown>>20)
			}
		})
	}
}
