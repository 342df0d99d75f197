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

package publish

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/artifact/server"
)

// fakeClient keeps objects by resource/namespace/name and merges applies the way a
// server-side apply of whole fields does: each top-level field given replaces the stored one.
// It counts the writes.
type fakeClient struct {
	objects map[string]*unstructured.Unstructured
	writes  []string
	noFlux  bool
}

func newFakeClient() *fakeClient {
	return &fakeClient{objects: map[string]*unstructured.Unstructured{}}
}

func key(r schema.GroupVersionResource, ns, name string) string {
	return r.Resource + "/" + ns + "/" + name
}

func (f *fakeClient) Get(_ context.Context, r schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	if f.noFlux && r.Group != "" {
		return nil, &meta.NoResourceMatchError{PartialResource: r}
	}
	o, ok := f.objects[key(r, ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(r.GroupResource(), name)
	}
	return o.DeepCopy(), nil
}

func (f *fakeClient) Apply(_ context.Context, r schema.GroupVersionResource, ns, name string, obj *unstructured.Unstructured, sub string) (*unstructured.Unstructured, error) {
	if f.noFlux && r.Group != "" {
		return nil, &meta.NoResourceMatchError{PartialResource: r}
	}
	k := key(r, ns, name)
	f.writes = append(f.writes, k+"/"+sub)
	stored, ok := f.objects[k]
	if !ok {
		if sub != "" {
			return nil, apierrors.NewNotFound(r.GroupResource(), name)
		}
		stored = &unstructured.Unstructured{Object: map[string]any{}}
		stored.SetGeneration(1)
	}
	for field, v := range obj.Object {
		if field == "metadata" || (sub == "status") != (field == "status") {
			continue
		}
		stored.Object[field] = v
	}
	stored.SetAPIVersion(obj.GetAPIVersion())
	stored.SetKind(obj.GetKind())
	stored.SetName(name)
	stored.SetNamespace(ns)
	if sub == "" {
		stored.SetLabels(obj.GetLabels())
		stored.SetOwnerReferences(obj.GetOwnerReferences())
	}
	f.objects[k] = stored
	return stored.DeepCopy(), nil
}

func (f *fakeClient) List(_ context.Context, r schema.GroupVersionResource, ns string) (*unstructured.UnstructuredList, error) {
	if f.noFlux && r.Group != "" {
		return nil, &meta.NoResourceMatchError{PartialResource: r}
	}
	list := &unstructured.UnstructuredList{}
	for k, o := range f.objects {
		if strings.HasPrefix(k, r.Resource+"/"+ns+"/") {
			list.Items = append(list.Items, *o.DeepCopy())
		}
	}
	return list, nil
}

func webInstance() *templatesv1.TemplateInstance {
	return &templatesv1.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "uid-1", Generation: 2},
		Spec:       templatesv1.TemplateInstanceSpec{Delivery: &templatesv1.Delivery{Type: templatesv1.DeliveryExternalArtifact}},
	}
}

func renderConfigMaps(t *testing.T, values ...string) (*artifact.Artifact, []templatesv1.TemplateInstanceObject) {
	t.Helper()
	var objects []*unstructured.Unstructured
	for i, v := range values {
		objects = append(objects, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "namespace": "demo"}, "data": map[string]any{"v": v}}})
	}
	a, refs, err := Pack(objects, artifact.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return a, refs
}

func TestPublish(t *testing.T) {
	c := newFakeClient()
	ti := webInstance()
	served := map[string]*server.Stored{}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &Publisher{URL: "http://stencil-artifacts.stencil-system.svc.cluster.local.", Now: func() time.Time { return now },
		Published: func(ns, name string, s *server.Stored) { served[ns+"/"+name] = s }}
	ctx := context.Background()

	first, refs := renderConfigMaps(t, "1", "2")
	out, err := p.Publish(ctx, c, ti, nil, first, RevisionName(0, ti.Generation), refs)
	if err != nil {
		t.Fatal(err)
	}
	want := templatesv1.PublishedArtifact{ExternalArtifact: "web", Revision: "g2@" + first.Digest, Digest: first.Digest, Size: int64(len(first.Archive)), Objects: 2}
	if !out.Changed || out.Artifact != want {
		t.Fatalf("outcome %+v, want %+v", out, want)
	}
	if strings.Join(c.writes, " ") != "configmaps/demo/web-artifact/ externalartifacts/demo/web/ externalartifacts/demo/web/status" {
		t.Errorf("writes %v", c.writes)
	}
	// The ExternalArtifact as source-controller writes its own (RFC-0012's example).
	ea := c.objects["externalartifacts/demo/web"]
	st, _, _ := unstructured.NestedMap(ea.Object, "status", "artifact")
	prev, err := ReadStorage(ctx, c, "demo", "web")
	if err != nil || prev == nil || !prev.Intact || len(prev.Objects) != 2 || prev.Objects[1] != refs[1] {
		t.Fatalf("storage %+v, %v", prev, err)
	}
	url := p.URL + artifact.URLPath("demo", "web", prev.Token, first.Digest)
	if st["digest"] != first.Digest || st["revision"] != want.Revision || st["url"] != url || st["size"] != int64(len(first.Archive)) ||
		st["path"] != "templateinstance/demo/web/"+first.Hex()+".tar.gz" || st["lastUpdateTime"] != "2026-01-02T03:04:05Z" {
		t.Errorf("status.artifact %v", st)
	}
	ready := meta.FindStatusCondition(conditionsOf(ea), "Ready")
	if ready == nil || ready.Status != "True" || ready.Reason != "Succeeded" || !strings.Contains(ready.Message, want.Revision) || ready.ObservedGeneration != 1 {
		t.Errorf("Ready %+v", ready)
	}
	if ref, _, _ := unstructured.NestedMap(ea.Object, "spec", "sourceRef"); ref["kind"] != "TemplateInstance" || ref["name"] != "web" ||
		ref["apiVersion"] != "templates.stencil.dev/v1alpha1" {
		t.Errorf("sourceRef %v", ref)
	}
	if owners := ea.GetOwnerReferences(); len(owners) != 1 || owners[0].UID != "uid-1" || owners[0].Controller == nil || !*owners[0].Controller {
		t.Errorf("owners %+v", owners)
	}
	if s := served["demo/web"]; s == nil || s.Digest != first.Digest || s.Token != prev.Token {
		t.Errorf("the artifact server was told %+v", s)
	}

	// Unchanged: nothing written, however often.
	for i := 0; i < 3; i++ {
		ti.Generation++
		again, refs := renderConfigMaps(t, "1", "2")
		out, err := p.Publish(ctx, c, ti, prev, again, RevisionName(0, ti.Generation), refs)
		if err != nil || out.Changed || out.Artifact != want {
			t.Fatalf("unchanged: %+v, %v", out, err)
		}
	}
	if len(c.writes) != 3 {
		t.Errorf("an unchanged render wrote %v", c.writes[3:])
	}

	// Tampered storage is written again, as is an ExternalArtifact someone pointed elsewhere.
	cm := c.objects["configmaps/demo/web-artifact"]
	_ = unstructured.SetNestedField(cm.Object, base64.StdEncoding.EncodeToString([]byte("not the archive")), "binaryData", ArchiveKey)
	tampered, err := ReadStorage(ctx, c, "demo", "web")
	if err != nil || tampered.Intact {
		t.Fatalf("tampered storage reads intact: %+v %v", tampered, err)
	}
	if out, err := p.Publish(ctx, c, ti, tampered, first, "g9", refs); err != nil || !out.Changed || out.Artifact.Revision != "g9@"+first.Digest {
		t.Fatalf("over tampered storage: %+v %v", out, err)
	}
	if healed, _ := ReadStorage(ctx, c, "demo", "web"); !healed.Intact || healed.Token != prev.Token {
		t.Errorf("after a rewrite: %+v (token kept: %v)", healed, healed.Token == prev.Token)
	}

	// A new render: a new digest and revision, the same token.
	c.writes = nil
	second, refs2 := renderConfigMaps(t, "1")
	prev, _ = ReadStorage(ctx, c, "demo", "web")
	out, err = p.Publish(ctx, c, ti, prev, second, "r4", refs2)
	if err != nil || !out.Changed || out.Artifact.Revision != "r4@"+second.Digest || len(c.writes) != 3 {
		t.Fatalf("a new render: %+v %v, writes %v", out, err, c.writes)
	}
	if removed := Removed(prev, refs2); len(removed) != 1 || removed[0].Name != "cm-1" {
		t.Errorf("removed %+v", removed)
	}
	if next, _ := ReadStorage(ctx, c, "demo", "web"); next.Token != prev.Token || next.Digest != second.Digest {
		t.Errorf("storage %+v", next)
	}
}

func TestPublishWithoutFlux(t *testing.T) {
	c := newFakeClient()
	c.noFlux = true
	a, refs := renderConfigMaps(t, "1")
	_, err := (&Publisher{URL: "http://a"}).Publish(context.Background(), c, webInstance(), nil, a, "g1", refs)
	var missing *MissingKindError
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "install Flux's source CRDs") {
		t.Fatalf("Publish without Flux's CRDs: %v", err)
	}
	if _, err := AppliedBy(context.Background(), c, webInstance(), a.Digest); !errors.As(err, &missing) {
		t.Errorf("AppliedBy without Flux's CRDs: %v", err)
	}
}

func TestMarkFailedKeepsTheArtifact(t *testing.T) {
	c := newFakeClient()
	ti := webInstance()
	a, refs := renderConfigMaps(t, "1")
	if _, err := (&Publisher{URL: "http://a"}).Publish(context.Background(), c, ti, nil, a, "g1", refs); err != nil {
		t.Fatal(err)
	}
	if err := MarkFailed(context.Background(), c, ti, "the render has 100000 objects"); err != nil {
		t.Fatal(err)
	}
	ea := c.objects["externalartifacts/demo/web"]
	ready := meta.FindStatusCondition(conditionsOf(ea), "Ready")
	digest, _, _ := unstructured.NestedString(ea.Object, "status", "artifact", "digest")
	if ready == nil || ready.Status != "False" || ready.Reason != "StorageOperationFailed" || digest != a.Digest {
		t.Errorf("Ready %+v, artifact %q", ready, digest)
	}
	if err := MarkFailed(context.Background(), newFakeClient(), ti, "x"); err != nil {
		t.Errorf("without an ExternalArtifact: %v", err)
	}
}

func kustomizationOf(name, sourceKind, sourceName, applied, ready string, generation, observed int64) *unstructured.Unstructured {
	k := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": name, "namespace": "demo", "generation": generation},
		"spec":     map[string]any{"sourceRef": map[string]any{"kind": sourceKind, "name": sourceName}},
		"status":   map[string]any{"lastAppliedRevision": applied, "observedGeneration": observed},
	}}
	if ready != "" {
		_ = unstructured.SetNestedSlice(k.Object, []any{map[string]any{"type": "Ready", "status": ready, "reason": "R", "message": "m",
			"lastTransitionTime": "2026-01-01T00:00:00Z"}}, "status", "conditions")
	}
	return k
}

func TestAppliedBy(t *testing.T) {
	digest := "sha256:" + strings.Repeat("a", 64)
	for _, tc := range []struct {
		name   string
		ks     []*unstructured.Unstructured
		done   bool
		reason string
	}{
		{"none", nil, false, ReasonNoConsumer},
		{"another source only", []*unstructured.Unstructured{kustomizationOf("a", "GitRepository", "web", "r1@"+digest, "True", 1, 1)}, false, ReasonNoConsumer},
		{"applied", []*unstructured.Unstructured{kustomizationOf("a", "ExternalArtifact", "web", "r1@"+digest, "True", 1, 1)}, true, ReasonApplied},
		{"the old digest", []*unstructured.Unstructured{kustomizationOf("a", "ExternalArtifact", "web", "r1@sha256:"+strings.Repeat("b", 64), "True", 1, 1)}, false, ReasonNotYet},
		{"applied, not healthy", []*unstructured.Unstructured{kustomizationOf("a", "ExternalArtifact", "web", "r1@"+digest, "False", 1, 1)}, false, ReasonApplyFailing},
		{"applied, spec changed since", []*unstructured.Unstructured{kustomizationOf("a", "ExternalArtifact", "web", "r1@"+digest, "True", 2, 1)}, false, ReasonApplyFailing},
		{"one of two", []*unstructured.Unstructured{kustomizationOf("a", "ExternalArtifact", "web", "r1@"+digest, "True", 1, 1),
			kustomizationOf("b", "ExternalArtifact", "web", "", "", 1, 0)}, false, ReasonNotYet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeClient()
			for _, k := range tc.ks {
				c.objects[key(Kustomizations, "demo", k.GetName())] = k
			}
			got, err := AppliedBy(context.Background(), c, webInstance(), digest)
			if err != nil || got.Done != tc.done || got.Reason != tc.reason || got.Message == "" {
				t.Fatalf("AppliedBy: %+v, %v", got, err)
			}
		})
	}
}

func TestSecretFields(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "s3cr3t-value-name"},
		"data": map[string]any{"url": "postgres://app:s3cr3t-value@db", "plain": "x", "s3cr3t-value": "key"},
		"list": []any{"a", map[string]any{"deep": "S3CR3T-VALUE"}},
	}}
	holds := func(v string) bool { return strings.Contains(strings.ToLower(v), "s3cr3t-value") }
	got := strings.Join(SecretFields(obj, holds), " ")
	want := "data.s3cr3t-value data.url list[1].deep metadata.name"
	if got != want {
		t.Errorf("SecretFields: %q, want %q", got, want)
	}
	if f := SecretFields(obj, func(string) bool { return false }); f != nil {
		t.Errorf("none held: %v", f)
	}
}

// TestStoredLifecycle: the storage remembers which published objects the template retained,
// so that when a later render drops one, Removed gives it with its Lifecycle (Flux leaves it
// in place; the prune rule does not ask for delete); storage written before holds none.
func TestStoredLifecycle(t *testing.T) {
	objects := []templatesv1.TemplateInstanceObject{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "demo", Name: "kept", Lifecycle: templatesv1.LifecycleRetain},
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "demo", Name: "web"},
	}
	lines := make([]string, len(objects))
	for i, o := range objects {
		lines[i] = storageLine(o)
	}
	if lines[0] != "v1 ConfigMap demo kept retain" || lines[1] != "apps/v1 Deployment demo web" {
		t.Fatalf("lines %q", lines)
	}
	stored := StoredObjects(map[string][]byte{ObjectsKey: []byte(strings.Join(lines, "\n") + "\nv1 ConfigMap demo odd delete\nv1 ConfigMap demo")})
	if len(stored) != 2 || stored[0] != objects[0] || stored[1] != objects[1] {
		t.Fatalf("read back %+v", stored)
	}
	removed := Removed(&Storage{Objects: stored}, objects[1:])
	if len(removed) != 1 || removed[0].Name != "kept" || removed[0].Lifecycle != templatesv1.LifecycleRetain {
		t.Errorf("removed %+v", removed)
	}
}
