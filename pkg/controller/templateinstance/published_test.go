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

package templateinstance

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/publish"
)

// A published render of 100,000 objects is refused with a clear error right after it is
// rendered, before its objects are decoded, planned or packed: the pass allocates a small
// multiple of the rendered bytes, never a decoded tree of each object.
func TestPublishedHundredThousandObjects(t *testing.T) {
	const n = 100000
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i)
	}
	tmpl := newTemplate("app", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"item-${INDEX}",`+
		`"annotations":{"templates.stencil.dev/for-each":"params.ITEMS"}},"data":{"item":"${ITEM}"}}`)
	tmpl.Parameters = []templatesv1.Parameter{{Name: "ITEMS", Type: "json", Value: "[]"}}
	ti := newInstance("shop", published(""), func(ti *templatesv1.TemplateInstance) {
		ti.Spec.Parameters = map[string]string{"ITEMS": "[" + strings.Join(items, ",") + "]"}
	})
	limits := artifact.DefaultLimits
	f := (&fixture{t: t, objects: []k8sruntime.Object{tmpl, ti}, publishing: &limits}).build()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := f.sync("shop")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errRetry) {
		t.Fatalf("sync: %v", err)
	}
	failed := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed)
	if failed.Reason != "ArtifactTooLarge" || !strings.Contains(failed.Message, "the render has 100000 objects; a published artifact holds at most 10000") {
		t.Errorf("Failed %+v", failed)
	}
	for _, a := range f.targetActions() {
		if strings.HasPrefix(a, "apply configmaps") || strings.HasPrefix(a, "get configmaps demo/item") {
			t.Fatalf("a refused render reached the target: %s", a)
		}
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("the pass allocated %d MB", allocated>>20)
	if allocated > 250<<20 {
		t.Errorf("the pass allocated %d MB for 100,000 objects", allocated>>20)
	}
}

// An artifact changed in its ConfigMap is stored again by the pass after the controller looks
// at the instance (its resync at the latest), though nothing else changed.
func TestPublishedStorageTamperedIsStoredAgain(t *testing.T) {
	limits := artifact.DefaultLimits
	f := (&fixture{t: t, objects: []k8sruntime.Object{newTemplate("app", configMap), newInstance("shop", published(""))}, publishing: &limits}).build()
	fluxReports(true, "True")(f)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	cm := f.liveObject("configmaps", "demo", "shop-artifact")
	good, _, _ := unstructured.NestedString(cm.Object, "binaryData", publish.ArchiveKey)
	_ = unstructured.SetNestedField(cm.Object, "dGFtcGVyZWQ=", "binaryData", publish.ArchiveKey)
	if err := f.target.Tracker().Update(publish.ConfigMaps, cm, "demo"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // a look that finds it changed, then a pass
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
	}
	cm = f.liveObject("configmaps", "demo", "shop-artifact")
	if now, _, _ := unstructured.NestedString(cm.Object, "binaryData", publish.ArchiveKey); now != good {
		t.Errorf("the tampered artifact stays: %q", now)
	}
	if ready := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceReady); ready.Reason != "Ready" {
		t.Errorf("Ready %+v", ready)
	}
}

// publishedValue is the value of ConfigMap config in the artifact the instance's storage holds,
// "" when nothing is stored or the artifact holds no such ConfigMap.
func publishedValue(f *fixture) string {
	f.t.Helper()
	stored, err := publish.ReadStorage(context.Background(), publish.NewClient(f.target), "demo", "shop")
	if err != nil {
		f.t.Fatal(err)
	}
	if stored == nil {
		return ""
	}
	if !stored.Intact {
		f.t.Fatalf("the stored artifact's digest is not %s", stored.Digest)
	}
	zr, err := gzip.NewReader(bytes.NewReader(stored.Archive))
	if err != nil {
		f.t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		if _, err := tr.Next(); err == io.EOF {
			return ""
		} else if err != nil {
			f.t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			f.t.Fatal(err)
		}
		var obj struct {
			Kind     string                `json:"kind"`
			Metadata struct{ Name string } `json:"metadata"`
			Data     map[string]string     `json:"data"`
		}
		if err := yaml.Unmarshal(body, &obj); err != nil {
			f.t.Fatal(err)
		}
		if obj.Kind == "ConfigMap" && obj.Metadata.Name == "config" {
			return obj.Data["k"]
		}
	}
}

// A Template rewritten to drop an object that Flux would then prune is published only if its
// author may delete that object: Flux prunes with its own identity, so the rule asks before.
// Bob, who may create ConfigMaps but not delete them, drops one: nothing is published, and the
// artifact Flux applies stays the one that holds it.
func TestPublishedPruneNeedsDelete(t *testing.T) {
	limits := artifact.DefaultLimits
	other := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}`
	f := (&fixture{t: t, objects: []k8sruntime.Object{newTemplate("app", configMap, other), newInstance("shop", published(""))},
		publishing: &limits, deny: refuse("bob", "delete", "configmaps")}).build()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	before, err := publish.ReadStorage(t.Context(), publish.NewClient(f.target), "demo", "shop")
	if err != nil || before == nil || len(before.Objects) != 2 {
		t.Fatalf("first publication: %+v %v", before, err)
	}

	dropped := newTemplate("app", configMap)
	dropped.ResourceVersion = "8"
	dropped.Author.Username = "bob"
	if err := f.instances.Tracker().Update(templatesv1.SchemeGroupVersion.WithResource("templates"), dropped, "demo"); err != nil {
		t.Fatal(err)
	}
	f.authz.Reset()
	if _, err := f.sync("shop"); !errors.Is(err, errRetry) {
		t.Fatalf("sync: %v", err)
	}
	if !slices.Contains(f.authz.Asked(), "bob delete configmaps demo/other") {
		t.Errorf("bob was not asked about the delete Flux would do: %v", f.authz.Asked())
	}
	if failed := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed); failed.Reason != "AuthorForbidden" ||
		!strings.Contains(failed.Message, "bob") || !strings.Contains(failed.Message, "delete") {
		t.Errorf("Failed %+v", failed)
	}
	after, err := publish.ReadStorage(t.Context(), publish.NewClient(f.target), "demo", "shop")
	if err != nil || after == nil || after.Digest != before.Digest {
		t.Errorf("the stored artifact changed: %+v %v", after, err)
	}
}
