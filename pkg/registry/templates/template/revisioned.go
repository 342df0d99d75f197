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

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
	if err == nil && len(options.DryRun) == 0 {
		s.ensure(ctx, out)
	}
	return out, created, err
}

// Delete deletes the Template, then, once it is gone, its revisions. The object deleted is
// the one the deletion validated (the store answers a Status, not the object).
func (s RevisionedStore) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	var deleting *templates.Template
	validate := func(ctx context.Context, obj runtime.Object) error {
		if t, ok := obj.(*templates.Template); ok {
			deleting = t
		}
		if deleteValidation == nil {
			return nil
		}
		return deleteValidation(ctx, obj)
	}
	out, deleted, err := s.Store.Delete(ctx, name, validate, options)
	if err == nil && deleted && deleting != nil && s.Revisions != nil && len(options.DryRun) == 0 {
		s.Revisions.DeleteAll(ctx, deleting)
	}
	return out, deleted, err
}

// DeleteCollection deletes Templates, then the revisions of each one gone.
func (s RevisionedStore) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions,
	listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	out, err := s.Store.DeleteCollection(ctx, deleteValidation, options, listOptions)
	if list, ok := out.(*templates.TemplateList); ok && s.Revisions != nil && len(options.DryRun) == 0 {
		for i := range list.Items {
			if t := &list.Items[i]; len(t.Finalizers) == 0 {
				s.Revisions.DeleteAll(ctx, t)
			}
		}
	}
	return out, err
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
