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

package adopt

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// pagedReader is a cluster that makes each listed object as its page is read, as a paged
// List of the API server hands them: n objects of a resource, of size bytes of data each.
type pagedReader struct {
	n int
	// item makes the i-th object.
	item func(i int) *unstructured.Unstructured
	// visited, when set, is called after each visit.
	visited func(i int)
}

func (r pagedReader) Get(context.Context, schema.GroupVersionResource, string, string) (*unstructured.Unstructured, error) {
	return nil, fmt.Errorf("no Get")
}

func (r pagedReader) List(_ context.Context, _ schema.GroupVersionResource, _, _ string, visit func(*unstructured.Unstructured) error) error {
	for i := 0; i < r.n; i++ {
		if err := visit(r.item(i)); err != nil {
			return err
		}
		if r.visited != nil {
			r.visited(i)
		}
	}
	return nil
}

func configMapMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	return m
}

// retained is the heap that read's answer holds once read returned, in bytes.
func retained(t *testing.T, read func() any) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := read()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// TestReadSourceKeepsNoData: a selector that reaches 400 ConfigMaps of 256 KiB each (100 MiB,
// as a namespace's editor can make) is read keeping what names each object, not its data;
// and one that reaches more than MaxSourceObjects objects is refused.
func TestReadSourceKeepsNoData(t *testing.T) {
	data := strings.Repeat("x", 256<<10)
	r := pagedReader{n: 400, item: func(i int) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm-" + strconv.Itoa(i), "namespace": "shop", "uid": "u" + strconv.Itoa(i),
				"labels": map[string]any{"app": "web"}, "annotations": map[string]any{"big": data}},
			"data": map[string]any{"k": data + strconv.Itoa(i)}}}
		return u
	}}
	selector := &templatesv1.TemplateInstanceAdoption{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	kinds := []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}}
	var s *Source
	got := retained(t, func() any {
		var err error
		if s, err = ReadSource(context.Background(), r, configMapMapper(), "shop", selector, kinds); err != nil {
			t.Fatal(err)
		}
		return s
	})
	t.Logf("a source of 400 ConfigMaps of 512 KiB each holds %d KiB", got>>10)
	if len(s.Objects) != 400 || got > 4<<20 {
		t.Errorf("%d objects holding %d bytes; want 400 in at most 4 MiB", len(s.Objects), got)
	}
	for _, u := range s.Objects {
		if u.Object["data"] != nil || u.GetAnnotations() != nil || u.GetUID() == "" {
			t.Fatalf("kept %v", u.Object["metadata"])
		}
	}

	r = pagedReader{n: MaxSourceObjects + 1, item: func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cm-" + strconv.Itoa(i), "namespace": "shop"}}}
	}}
	if _, err := ReadSource(context.Background(), r, configMapMapper(), "shop", selector, kinds); err == nil ||
		!strings.Contains(err.Error(), "more than 10000 objects to adopt") {
		t.Errorf("a selector of %d objects: %v", MaxSourceObjects+1, err)
	}
}

// TestReadHelmReleaseKeepsOneRecord: a release of 120 records of 256 KiB each (whoever may
// write Secrets writes them; random, so that gzip does not shrink them) is read holding one
// record's release at a time, never all of them, and keeps none once read.
func TestReadHelmReleaseKeepsOneRecord(t *testing.T) {
	const records = 120
	random := make([]byte, 192<<10)
	var before runtime.MemStats
	var peak uint64
	r := pagedReader{n: records, item: func(i int) *unstructured.Unstructured {
		revision := i + 1
		if _, err := rand.Read(random); err != nil {
			t.Fatal(err)
		}
		rel := release("web", revision, "deployed")
		rel["manifest"] = "" // no objects to read
		rel["padding"] = base64.StdEncoding.EncodeToString(random)
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": HelmReleaseSecretType,
			"metadata": map[string]any{"name": HelmRecordName("web", revision), "namespace": "shop", "uid": "u" + strconv.Itoa(i),
				"labels": map[string]any{"owner": "helm", "name": "web", "version": strconv.Itoa(revision), "status": "deployed"}},
			"data": map[string]any{"release": base64.StdEncoding.EncodeToString(helmEncode(t, rel))}}}
	}, visited: func(i int) {
		if i%10 != 9 {
			return
		}
		var now runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&now)
		if now.HeapAlloc > before.HeapAlloc && now.HeapAlloc-before.HeapAlloc > peak {
			peak = now.HeapAlloc - before.HeapAlloc
		}
	}}
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := ReadSource(context.Background(), r, configMapMapper(), "shop", &templatesv1.TemplateInstanceAdoption{HelmRelease: "web"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a release of %d records of 256 KiB each was read holding at most %d KiB", records, peak>>10)
	if len(s.Records) != records || s.Records[records-1].Name != HelmRecordName("web", records) || !strings.Contains(s.Description, "revision 120") {
		t.Errorf("%d records, last %v, %q", len(s.Records), s.Records[len(s.Records)-1], s.Description)
	}
	if peak > 4<<20 {
		t.Errorf("held %d KiB while reading; want at most 4 MiB (a record or two)", peak>>10)
	}
}
