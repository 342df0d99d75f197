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

package template_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// edit changes the message of the stored Template name: its next revision.
func (s storages) edit(t *testing.T, namespace, name, message string) *templates.Template {
	t.Helper()
	obj, err := s.templates.Get(request(namespace), name, &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := obj.(*templates.Template).DeepCopy()
	changed.Message = message
	out, _, err := s.templates.Update(request(namespace), name, rest.DefaultUpdatedObjectInfo(changed), nil, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.(*templates.Template)
}

// numbers are the numbers of the revisions the stored t owns.
func (s storages) numbers(t *testing.T, tpl *templates.Template) []int64 {
	t.Helper()
	revisions, err := s.revisions.List(request(tpl.Namespace), tpl)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, r := range revisions {
		out = append(out, r.Revision)
	}
	return out
}

// TestRevisionsOfLongNames: a Template may be named as long as any object (253 characters);
// its name then fits no label, and its revisions' names keep a hash of it. Before, a name over
// 63 characters got no revision at all (the label was refused).
func TestRevisionsOfLongNames(t *testing.T) {
	s := newStorages(t)
	long := strings.Repeat("a", 250) + "xyz"
	alike := strings.Repeat("a", 250) + "xyw"
	for _, name := range []string{strings.Repeat("b", 64), long, alike} {
		created := create(t, s.templates, "apps", name)
		edited := s.edit(t, "apps", name, "two")
		if got := s.numbers(t, edited); len(got) != 2 || got[0] != 2 || got[1] != 1 {
			t.Fatalf("%d characters: revisions %v, want [2 1]", len(name), got)
		}
		rev, err := s.revisions.Get(request("apps"), edited, 2)
		if err != nil {
			t.Fatalf("%d characters: %v", len(name), err)
		}
		if errs := utilvalidation.IsDNS1123Subdomain(rev.Name); len(errs) > 0 {
			t.Errorf("revision name %q: %v", rev.Name, errs)
		}
		if _, ok := rev.Labels[v1alpha1.LabelTemplate]; ok {
			t.Errorf("%d characters: a template label %q", len(name), rev.Labels[v1alpha1.LabelTemplate])
		}
		if rev.Labels[v1alpha1.LabelTemplateUID] != string(created.UID) || rev.Labels[v1alpha1.LabelRevisionHash] != templaterevision.ShortHash(edited.Revision.Hash) {
			t.Errorf("%d characters: labels %v", len(name), rev.Labels)
		}
		ref := metav1.GetControllerOf(rev)
		if ref == nil || ref.UID != created.UID || ref.Kind != "Template" || ref.Name != name || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("%d characters: owner %+v", len(name), ref)
		}
	}
	if v1alpha1.RevisionName(long, 2) == v1alpha1.RevisionName(alike, 2) {
		t.Errorf("two long names share the revision name %s", v1alpha1.RevisionName(long, 2))
	}
	// A name that fits keeps the label kubectl get -l selects by.
	short := create(t, s.templates, "apps", "web")
	if rev, err := s.revisions.Get(request("apps"), short, 1); err != nil || rev.Labels[v1alpha1.LabelTemplate] != "web" || rev.Name != "web-1" {
		t.Errorf("web: %v %+v", err, rev)
	}
}

// TestRevisionsGoWithTheirTemplate: deleting a Template deletes its revisions however it goes:
// a delete, the update that removes its last finalizer (before: its revisions stayed), and on
// a server no garbage collector serves, a delete that asks to orphan or to wait in the
// foreground (which would otherwise leave the Template being deleted for ever). A dry run
// deletes nothing.
func TestRevisionsGoWithTheirTemplate(t *testing.T) {
	s := newStorages(t)
	ctx := request("apps")

	held := benchTemplate("held")
	held.Finalizers = []string{"example.com/hold"}
	if _, err := s.templates.Create(ctx, held, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := s.edit(t, "apps", "held", "two")
	if _, _, err := s.templates.Delete(ctx, "held", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	if _, deleted, err := s.templates.Delete(ctx, "held", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil || deleted {
		t.Fatalf("delete of a Template with a finalizer: deleted %v, %v", deleted, err)
	}
	if got := s.numbers(t, edited); len(got) != 2 {
		t.Fatalf("while its finalizer holds it: revisions %v, want both", got)
	}
	obj, err := s.templates.Get(ctx, "held", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	released := obj.(*templates.Template).DeepCopy()
	released.Finalizers = nil
	if _, _, err := s.templates.Update(ctx, "held", rest.DefaultUpdatedObjectInfo(released), nil, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.templates.Get(ctx, "held", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after its last finalizer: %v", err)
	}
	if got := s.numbers(t, edited); len(got) != 0 {
		t.Errorf("deleted through its finalizer: revisions %v left", got)
	}

	s.templates.WithoutGarbageCollector()
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationOrphan, metav1.DeletePropagationForeground} {
		tpl := create(t, s.templates, "apps", "local-"+strings.ToLower(string(policy)))
		if _, deleted, err := s.templates.Delete(ctx, tpl.Name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil || !deleted {
			t.Errorf("%s, without a garbage collector: deleted %v, %v; want at once", policy, deleted, err)
		}
		if got := s.numbers(t, tpl); len(got) != 0 {
			t.Errorf("%s, without a garbage collector: revisions %v left", policy, got)
		}
	}
}

// TestRevisionReadsCheckTheOwner: a revision that a Template of the same name left behind (here
// one a garbage collector orphaned) is never read as a revision of a Template created since:
// before, the new Template's pinned instances rendered the old one's content. The revision
// the new Template writes under that name replaces it.
func TestRevisionReadsCheckTheOwner(t *testing.T) {
	s := newStorages(t)
	ctx := request("apps")
	old := create(t, s.templates, "apps", "web")
	s.edit(t, "apps", "web", "the old Template's")

	// What the garbage collector does for kubectl delete --cascade=orphan: the owner goes.
	obj, err := s.revisionsREST.Get(ctx, "web-2", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	orphan := obj.(*templates.TemplateRevision).DeepCopy()
	orphan.OwnerReferences = nil
	if _, _, err := s.revisionsREST.Update(ctx, "web-2", rest.DefaultUpdatedObjectInfo(orphan), nil, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.templates.Delete(ctx, "web", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.revisionsREST.Get(ctx, "web-2", &metav1.GetOptions{}); err != nil {
		t.Fatalf("the orphaned revision is kept with its Template gone: %v", err)
	}
	if _, err := s.revisionsREST.Get(ctx, "web-1", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the owned revision 1 after its Template's deletion: %v", err)
	}

	again := create(t, s.templates, "apps", "web")
	if again.UID == old.UID {
		t.Fatal("the same uid twice")
	}
	if rev, err := s.revisions.Get(ctx, again, 2); !apierrors.IsNotFound(err) {
		t.Fatalf("revision 2 of the new Template, which it never had: %v (%+v)", err, rev)
	}
	edited := s.edit(t, "apps", "web", "the new Template's")
	rev, err := s.revisions.Get(ctx, edited, 2)
	if err != nil || !strings.Contains(string(rev.Content.Raw), "the new Template's") || rev.Hash != edited.Revision.Hash {
		t.Fatalf("revision 2 of the new Template: %v %+v", err, rev)
	}
}

// TestRevisionContentIsImmutable: an update of a revision may change its metadata (the garbage
// collector removes owner references), never what it holds.
func TestRevisionContentIsImmutable(t *testing.T) {
	s := newStorages(t)
	ctx := request("apps")
	create(t, s.templates, "apps", "web")
	obj, err := s.revisionsREST.Get(ctx, "web-1", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rev := obj.(*templates.TemplateRevision)
	relabelled := rev.DeepCopy()
	relabelled.Labels["team"] = "a"
	if _, _, err := s.revisionsREST.Update(ctx, "web-1", rest.DefaultUpdatedObjectInfo(relabelled), nil, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{}); err != nil {
		t.Errorf("a label: %v", err)
	}
	forged := rev.DeepCopy()
	forged.ResourceVersion = ""
	forged.Content = runtime.RawExtension{Raw: []byte(`{"message":"forged"}`)}
	forged.Author = &templates.TemplateAuthor{Username: "system:admin"}
	forged.Hash = templaterevision.Hash(forged.Content.Raw)
	_, _, err = s.revisionsREST.Update(ctx, "web-1", rest.DefaultUpdatedObjectInfo(forged), nil, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("a new content: %v, want a 422", err)
	}
	for _, path := range []string{"content", "author", "hash"} {
		if !strings.Contains(err.Error(), path) {
			t.Errorf("the 422 does not name %s: %v", path, err)
		}
	}
}
