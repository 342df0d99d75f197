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

package templaterevision

import (
	"context"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// DefaultHistory is how many revisions of a Template are kept besides those instances use, as
// a Deployment keeps 10 old ReplicaSets.
const DefaultHistory = 10

// LabelTemplateUID on a revision is the uid of its Template: a Template deleted and created
// again under its name starts its numbers again, and its revisions are told apart from the old
// one's by it.
const LabelTemplateUID = "templates.stencil.dev/template-uid"

// writeTimeout bounds the Writer's own writes after a Template is stored: the client may be
// gone by then, and the revision is still owed.
const writeTimeout = 30 * time.Second

// Writer writes the revisions of Templates. The Template is the record: its content and
// revision stamp (number and hash) are stored in one write of the Template, and the revision
// object is written after it, idempotently, from the stored Template. Ensure is called by the
// Templates' storage after every stored create and update, and again by whoever needs a
// revision that is missing (the server died between the two writes), which writes it then from
// the Template while the Template still holds that revision.
type Writer struct {
	store   *genericregistry.Store
	history int
	// instances lists the TemplateInstances of a namespace, whose revisions are never pruned.
	instances rest.Lister
}

// SetInstances gives the Writer the TemplateInstances' storage; without it no revision is
// pruned, since none is known to be unused.
func (w *Writer) SetInstances(instances rest.Lister) { w.instances = instances }

// History is how many revisions of each Template are kept besides those instances use.
func (w *Writer) History() int { return w.history }

// Ensure writes the revision t holds, unless it is stored already, then prunes the Template's
// revisions beyond the history. t is a Template as stored.
func (w *Writer) Ensure(ctx context.Context, t *templates.Template) error {
	if t.Revision == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(genericapirequest.WithNamespace(context.WithoutCancel(ctx), t.Namespace), writeTimeout)
	defer cancel()
	if err := w.write(ctx, t); err != nil {
		return err
	}
	return w.prune(ctx, t)
}

// write creates the revision of t; one of the same name left by an earlier Template of the
// same name is replaced.
func (w *Writer) write(ctx context.Context, t *templates.Template) error {
	content, hash, err := Canonical(t)
	if err != nil {
		return fmt.Errorf("revision %d of Template %s/%s: %w", t.Revision.Number, t.Namespace, t.Name, err)
	}
	rev := &templates.TemplateRevision{
		ObjectMeta: metav1.ObjectMeta{Name: Name(t.Name, t.Revision.Number), Namespace: t.Namespace,
			Labels: map[string]string{v1alpha1.LabelTemplate: t.Name, LabelTemplateUID: string(t.UID)}},
		Template: t.Name, Revision: t.Revision.Number, Hash: hash, Author: t.Author.DeepCopy(),
		Content: runtime.RawExtension{Raw: content},
	}
	for attempt := 0; attempt < 2; attempt++ {
		_, err = w.store.Create(ctx, rev.DeepCopy(), nil, &metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		existing, err := w.get(ctx, rev.Name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if existing.Labels[LabelTemplateUID] == string(t.UID) {
			// Written already: by the request that stored it, or by an earlier repair.
			return nil
		}
		uid := existing.UID
		if _, _, err := w.store.Delete(ctx, existing.Name, rest.ValidateAllObjectFunc,
			&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

// Get reads the revision number of the Template namespace/template.
func (w *Writer) Get(ctx context.Context, namespace, template string, number int64) (*templates.TemplateRevision, error) {
	return w.get(genericapirequest.WithNamespace(ctx, namespace), Name(template, number))
}

func (w *Writer) get(ctx context.Context, name string) (*templates.TemplateRevision, error) {
	obj, err := w.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*templates.TemplateRevision), nil
}

// List returns the revisions of the Template namespace/template, newest first.
func (w *Writer) List(ctx context.Context, namespace, template string) ([]*templates.TemplateRevision, error) {
	obj, err := w.store.List(genericapirequest.WithNamespace(ctx, namespace), &metainternalversion.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{v1alpha1.LabelTemplate: template})})
	if err != nil {
		return nil, err
	}
	items := obj.(*templates.TemplateRevisionList).Items
	out := make([]*templates.TemplateRevision, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision > out[j].Revision })
	return out, nil
}

// prune deletes the revisions of t beyond the newest w.history, but those an instance pins or
// runs, and those of an earlier Template of the same name that no instance uses.
func (w *Writer) prune(ctx context.Context, t *templates.Template) error {
	if w.instances == nil {
		return nil
	}
	revisions, err := w.List(ctx, t.Namespace, t.Name)
	if err != nil {
		return err
	}
	kept := 0
	var doomed []*templates.TemplateRevision
	for _, rev := range revisions {
		if rev.Labels[LabelTemplateUID] == string(t.UID) && kept < w.history {
			kept++
			continue
		}
		doomed = append(doomed, rev)
	}
	if len(doomed) == 0 {
		return nil
	}
	used, err := w.used(ctx, t.Name)
	if err != nil {
		return err
	}
	for _, rev := range doomed {
		if used[rev.Revision] {
			continue
		}
		uid := rev.UID
		if _, _, err := w.store.Delete(ctx, rev.Name, rest.ValidateAllObjectFunc,
			&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
	}
	return nil
}

// used are the revision numbers of the Template template that an instance of the context's
// namespace pins or last applied.
func (w *Writer) used(ctx context.Context, template string) (map[int64]bool, error) {
	obj, err := w.instances.List(ctx, &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	used := map[int64]bool{}
	for _, ti := range obj.(*templates.TemplateInstanceList).Items {
		ref := ti.Spec.TemplateRef
		if ref == nil || ref.Name != template {
			continue
		}
		if ref.Revision > 0 {
			used[ref.Revision] = true
		}
		if r := ti.Status.TemplateRevision; r != nil {
			used[r.Number] = true
		}
	}
	return used, nil
}

// DeleteAll deletes the revisions of t, which was deleted.
func (w *Writer) DeleteAll(ctx context.Context, t *templates.Template) {
	ctx, cancel := context.WithTimeout(genericapirequest.WithNamespace(context.WithoutCancel(ctx), t.Namespace), writeTimeout)
	defer cancel()
	revisions, err := w.List(ctx, t.Namespace, t.Name)
	if err != nil {
		klog.ErrorS(err, "Listing the revisions of a deleted Template", "template", klog.KObj(t))
		return
	}
	for _, rev := range revisions {
		if rev.Labels[LabelTemplateUID] != string(t.UID) {
			continue
		}
		uid := rev.UID
		if _, _, err := w.store.Delete(ctx, rev.Name, rest.ValidateAllObjectFunc,
			&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
			klog.ErrorS(err, "Deleting a revision of a deleted Template", "revision", klog.KObj(rev))
		}
	}
}
