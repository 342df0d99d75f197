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
	"bytes"
	"context"
	"fmt"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/client-go/tools/cache"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry"
)

// REST serves TemplateRevisions: get, list and watch for everyone who reads Templates; update
// and patch of the metadata only (the content is immutable, as a ControllerRevision's data),
// and delete, which the garbage collector needs (it deletes a revision once its owner is gone,
// and removes the owner reference of one it orphans) and no role of Stencil grants. There is
// no create: only the server writes revisions, through a Writer, so that a revision always
// holds what was stored as that revision of its Template.
type REST struct {
	store registry.Store
}

var _ interface {
	rest.Getter
	rest.Lister
	rest.Watcher
	rest.Updater
	rest.GracefulDeleter
	rest.Scoper
	rest.ShortNamesProvider
	rest.CategoriesProvider
	rest.SingularNameProvider
	rest.Storage
} = &REST{}

// FieldTemplate is the field selector of a revision's Template's name, indexed in the
// revisions' cache: a Template's revisions are listed without reading the namespace's.
const FieldTemplate = "template"

// NewREST returns the storage of TemplateRevisions and the Writer of the server.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, history int) (*REST, *Writer, error) {
	s := strategy{scheme, names.SimpleNameGenerator}
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &templates.TemplateRevision{} },
		NewListFunc:               func() runtime.Object { return &templates.TemplateRevisionList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  templates.Resource("templaterevisions"),
		SingularQualifiedResource: templates.Resource("templaterevision"),

		CreateStrategy: s,
		UpdateStrategy: s,
		DeleteStrategy: s,

		TableConvertor: tableConvertor{},
	}
	options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs,
		TriggerFunc: map[string]storage.IndexerFunc{FieldTemplate: templateOf},
		Indexers:    &cache.Indexers{storage.FieldIndex(FieldTemplate): indexByTemplate}}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, nil, err
	}
	if history < 1 {
		history = DefaultHistory
	}
	return &REST{registry.NewStore(store, templates.Kind("TemplateRevision"))}, &Writer{store: store, history: history}, nil
}

// templateOf is the template field of a revision, for the watch cache's triggers.
func templateOf(obj runtime.Object) string {
	if rev, ok := obj.(*templates.TemplateRevision); ok {
		return rev.Template
	}
	return ""
}

// indexByTemplate indexes the revisions' cache by their Template's name.
func indexByTemplate(obj interface{}) ([]string, error) {
	rev, ok := obj.(*templates.TemplateRevision)
	if !ok {
		return nil, fmt.Errorf("not a TemplateRevision: %T", obj)
	}
	return []string{rev.Template}, nil
}

// New returns an empty TemplateRevision.
func (r *REST) New() runtime.Object { return &templates.TemplateRevision{} }

// NewList returns an empty list.
func (r *REST) NewList() runtime.Object { return &templates.TemplateRevisionList{} }

// Destroy releases the store.
func (r *REST) Destroy() { r.store.Destroy() }

// NamespaceScoped is true: a revision lives beside its Template.
func (r *REST) NamespaceScoped() bool { return true }

// GetSingularName is templaterevision.
func (r *REST) GetSingularName() string { return "templaterevision" }

// ShortNames lets users type kubectl get tplrev.
func (r *REST) ShortNames() []string { return []string{"tplrev"} }

// Categories puts revisions in kubectl get stencil.
func (r *REST) Categories() []string { return []string{"stencil"} }

// Get reads one revision.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// List lists revisions.
func (r *REST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}

// Watch watches revisions.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}

// Update changes a revision's metadata; a change of anything else is refused (422).
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// Delete deletes a revision: the garbage collector's, once its Template is gone.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return r.store.Delete(ctx, name, deleteValidation, options)
}

// ConvertToTable prints the columns of kubectl get templaterevisions.
func (r *REST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// strategy is the create behaviour of the Writer's own writes, and the update and delete
// behaviour of everyone's.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

func (strategy) NamespaceScoped() bool                                     { return true }
func (strategy) PrepareForCreate(context.Context, runtime.Object)          {}
func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (strategy) Canonicalize(runtime.Object)                               {}
func (strategy) AllowCreateOnUpdate(context.Context) bool                  { return false }
func (strategy) AllowUnconditionalUpdate(context.Context) bool             { return true }
func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {
}
func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Validate checks only what the Writer could get wrong: a revision is what was stored.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	rev := obj.(*templates.TemplateRevision)
	var errs field.ErrorList
	if rev.Revision < 1 {
		errs = append(errs, field.Invalid(field.NewPath("revision"), rev.Revision, "must be at least 1"))
	}
	if !strings.HasPrefix(rev.Hash, HashPrefix) {
		errs = append(errs, field.Invalid(field.NewPath("hash"), rev.Hash, "must start with "+HashPrefix))
	}
	return errs
}

// ValidateUpdate refuses any change but of the metadata: a revision holds what was stored as
// that revision of its Template, for good.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	rev, oldRev := obj.(*templates.TemplateRevision), old.(*templates.TemplateRevision)
	errs := apimachineryvalidation.ValidateObjectMetaUpdate(&rev.ObjectMeta, &oldRev.ObjectMeta, field.NewPath("metadata"))
	immutable := func(path string, changed bool) {
		if changed {
			errs = append(errs, field.Forbidden(field.NewPath(path), "a revision's "+path+" never changes: only its metadata may"))
		}
	}
	immutable("template", rev.Template != oldRev.Template)
	immutable("revision", rev.Revision != oldRev.Revision)
	immutable("hash", rev.Hash != oldRev.Hash)
	immutable("author", !apiequality.Semantic.DeepEqual(rev.Author, oldRev.Author))
	immutable("content", !bytes.Equal(rev.Content.Raw, oldRev.Content.Raw))
	return errs
}

// GetAttrs returns the labels and selectable fields of a revision: its metadata's and template.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	rev, ok := obj.(*templates.TemplateRevision)
	if !ok {
		return nil, nil, fmt.Errorf("not a TemplateRevision: %T", obj)
	}
	set := generic.ObjectMetaFieldsSet(&rev.ObjectMeta, true)
	set[FieldTemplate] = rev.Template
	return labels.Set(rev.Labels), set, nil
}

// Match is the filter of list and watch requests.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs, IndexFields: []string{FieldTemplate}}
}

// tableConvertor prints the columns of kubectl get templaterevisions.
type tableConvertor struct{}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the TemplateRevision: <template>-<revision>."},
	{Name: "Template", Type: "string", Description: "The Template the revision is of."},
	{Name: "Revision", Type: "integer", Description: "The revision's number."},
	{Name: "Hash", Type: "string", Description: "The first 12 hex digits of the SHA-256 of the content."},
	{Name: "Author", Type: "string", Description: "The user who wrote the content."},
	{Name: "Age", Type: "string", Description: "Time since the content was stored."},
}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		rev, ok := obj.(*templates.TemplateRevision)
		if !ok {
			return nil, fmt.Errorf("not a TemplateRevision: %T", obj)
		}
		author := "<none>"
		if rev.Author != nil && rev.Author.Username != "" {
			author = rev.Author.Username
		}
		return []interface{}{rev.Template, rev.Revision, ShortHash(rev.Hash), author}, nil
	})
}

// ShortHash is the first 12 hex digits of a hash, as a table shows it.
func ShortHash(hash string) string {
	hex := strings.TrimPrefix(hash, HashPrefix)
	if len(hex) > 12 {
		hex = hex[:12]
	}
	return hex
}
