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
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// DefaultHistory is how many revisions of a Template are kept besides those instances use, as
// a Deployment keeps 10 old ReplicaSets.
const DefaultHistory = 10

// writeTimeout bounds the Writer's own writes after a Template is stored: the client may be
// gone by then, and the revision is still owed.
const writeTimeout = 30 * time.Second

// Writer writes the revisions of Templates. The Template is the record: its content and
// revision stamp (number and hash) are stored in one write of the Template, and the revision
// object is written after it, idempotently, from the stored Template. Ensure is called by the
// Templates' storage after every stored create and update, and again by whoever needs a
// revision that is missing (the server died between the two writes), which writes it then from
// the Template while the Template still holds that revision.
//
// A revision is owned by its Template as a ControllerRevision is by its workload: an owner
// reference with the Template's uid (and the uid label), so that a cluster's garbage collector
// deletes it with its Template, and a Template created again under the same name never reads
// the old one's revisions (Get checks the owner).
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

// Ensure writes the revision t holds, unless it is stored already, then, when t has more
// revisions than the history keeps, prunes them. t is a Template as stored. A create (revision
// 1) reads nothing but its own revision's name: its cost does not depend on how many
// Templates the namespace holds.
func (w *Writer) Ensure(ctx context.Context, t *templates.Template) error {
	if t.Revision == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(genericapirequest.WithNamespace(context.WithoutCancel(ctx), t.Namespace), writeTimeout)
	defer cancel()
	if err := w.write(ctx, t); err != nil {
		return err
	}
	if t.Revision.Number <= int64(w.history) {
		return nil
	}
	return w.prune(ctx, t)
}

// write creates the revision of t; one of the same name that t does not own (left by an
// earlier Template of the same name) is replaced.
func (w *Writer) write(ctx context.Context, t *templates.Template) error {
	content, hash, err := Canonical(t)
	if err != nil {
		return fmt.Errorf("revision %d of Template %s/%s: %w", t.Revision.Number, t.Namespace, t.Name, err)
	}
	rev := &templates.TemplateRevision{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.RevisionName(t.Name, t.Revision.Number), Namespace: t.Namespace,
			Labels: revisionLabels(t, hash), OwnerReferences: []metav1.OwnerReference{ownerReference(t)}},
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
		if existing.Template == t.Name && Owned(existing, t.UID) {
			// Written already: by the request that stored it, or by an earlier repair.
			return nil
		}
		if err := w.delete(ctx, existing); err != nil && !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

// Get reads revision number of the stored Template t. A revision of that name that t does
// not own (a Template of the same name deleted before t was created wrote it) is not found:
// t never had that content.
func (w *Writer) Get(ctx context.Context, t *templates.Template, number int64) (*templates.TemplateRevision, error) {
	name := v1alpha1.RevisionName(t.Name, number)
	rev, err := w.get(genericapirequest.WithNamespace(ctx, t.Namespace), name)
	if err != nil {
		return nil, err
	}
	if rev.Template != t.Name || !Owned(rev, t.UID) {
		return nil, apierrors.NewNotFound(templates.Resource("templaterevisions"), name)
	}
	return rev, nil
}

func (w *Writer) get(ctx context.Context, name string) (*templates.TemplateRevision, error) {
	obj, err := w.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*templates.TemplateRevision), nil
}

// List returns the revisions that t owns, newest first. It reads the revisions of t's name
// through the field index of the revisions' cache (the template field), not the namespace's.
func (w *Writer) List(ctx context.Context, t *templates.Template) ([]*templates.TemplateRevision, error) {
	obj, err := w.store.List(genericapirequest.WithNamespace(ctx, t.Namespace), &metainternalversion.ListOptions{
		FieldSelector: fields.OneTermEqualSelector(FieldTemplate, t.Name)})
	if err != nil {
		return nil, err
	}
	items := obj.(*templates.TemplateRevisionList).Items
	out := make([]*templates.TemplateRevision, 0, len(items))
	for i := range items {
		if Owned(&items[i], t.UID) {
			out = append(out, &items[i])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision > out[j].Revision })
	return out, nil
}

// prune deletes the revisions of t beyond the newest w.history, but those an instance pins or
// runs. Revisions of an earlier Template of the same name are its own: they went with it.
func (w *Writer) prune(ctx context.Context, t *templates.Template) error {
	if w.instances == nil {
		return nil
	}
	revisions, err := w.List(ctx, t)
	if err != nil {
		return err
	}
	if len(revisions) <= w.history {
		return nil
	}
	doomed := revisions[w.history:]
	used, err := w.used(ctx, t.Name)
	if err != nil {
		return err
	}
	for _, rev := range doomed {
		if used[rev.Revision] {
			continue
		}
		if err := w.delete(ctx, rev); err != nil && !apierrors.IsConflict(err) {
			return err
		}
	}
	return nil
}

// delete deletes rev, that very object (its uid), unless it is gone already.
func (w *Writer) delete(ctx context.Context, rev *templates.TemplateRevision) error {
	uid := rev.UID
	_, _, err := w.store.Delete(ctx, rev.Name, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
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
