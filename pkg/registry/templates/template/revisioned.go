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

package template

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// RevisionedStore is the storage of Templates, of either group, that writes each stored
// revision's TemplateRevision after the Template, and deletes them with it. The two writes are
// not one transaction (etcd's storage writes one key per request): the Template is written
// first, carrying its revision number and hash, so a revision always holds what was stored;
// should the second write fail, the Template is stored all the same (the request says so in a
// warning), and the revision is written from it when it is first needed (Writer.Ensure).
type RevisionedStore struct {
	registry.Store
	// Revisions writes the revisions; nil writes none (a store built for a test).
	Revisions *templaterevision.Writer
}

// NewRevisionedStore returns the storage of Templates of kind over store, whose revisions
// revisions writes (nil for none) and deletes once their Template is gone, however it went
// (store.AfterDelete: a delete, a deletecollection, or the update that removed its last
// finalizer).
func NewRevisionedStore(store *genericregistry.Store, kind schema.GroupKind, revisions *templaterevision.Writer) RevisionedStore {
	if revisions != nil {
		store.AfterDelete = revisions.TemplateDeleted
	}
	return RevisionedStore{Store: registry.NewStore(store, kind), Revisions: revisions}
}

// WithoutGarbageCollector makes deleting a Template delete it at once whatever propagation
// policy the request asks for, as a server no garbage collector serves must (local mode):
// orphan and foreground deletion wait for a garbage collector, and would leave the Template
// being deleted for ever. Its revisions are then deleted by the storage (AfterDelete).
func (s RevisionedStore) WithoutGarbageCollector() {
	s.Store.Store.DeleteStrategy = noGarbageCollector{s.Store.Store.DeleteStrategy}
}

// noGarbageCollector is a delete strategy that supports no garbage collection policy.
type noGarbageCollector struct{ rest.RESTDeleteStrategy }

// DefaultGarbageCollectionPolicy is Unsupported: no finalizer of the garbage collector is added.
func (noGarbageCollector) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.Unsupported
}

// Create creates the Template, then its revision 1.
func (s RevisionedStore) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	out, err := s.Store.Create(ctx, obj, createValidation, options)
	if err == nil && len(options.DryRun) == 0 {
		s.ensure(ctx, out)
	}
	return out, err
}

// Update updates the Template, then writes the revision it holds, if new.
func (s RevisionedStore) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	out, created, err := s.Store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
	if t, ok := out.(*templates.Template); err == nil && len(options.DryRun) == 0 && ok && t.DeletionTimestamp == nil {
		s.ensure(ctx, out)
	}
	return out, created, err
}

// ensure writes the revision of the stored Template out.
func (s RevisionedStore) ensure(ctx context.Context, out runtime.Object) {
	t, ok := out.(*templates.Template)
	if !ok || s.Revisions == nil || t.Revision == nil {
		return
	}
	if err := s.Revisions.Ensure(ctx, t); err != nil {
		klog.ErrorS(err, "Writing a Template's revision", "template", klog.KObj(t), "revision", t.Revision.Number)
		warning.AddWarning(ctx, "", fmt.Sprintf("the Template is stored, but writing its revision %d failed (%v): it is written when it is first needed",
			t.Revision.Number, err))
	}
}
