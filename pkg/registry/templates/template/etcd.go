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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// REST is the etcd-backed storage of Templates; each stored change of a content is kept as a
// TemplateRevision.
type REST struct {
	RevisionedStore
	// store is the generic store under RevisionedStore, which templates/status shares.
	store *genericregistry.Store
}

var _ rest.StandardStorage = &REST{}
var _ rest.ShortNamesProvider = &REST{}
var _ rest.CategoriesProvider = &REST{}

// NewREST returns the storage of Templates, whose revisions revisions writes (nil for none),
// with the objects of each written type-checked by types (nil for none).
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, plugins plugin.PolicyFunc, revisions *templaterevision.Writer, types *templatecheck.Types) (*REST, error) {
	strategy := NewStrategy(scheme, plugins, types)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &templates.Template{} },
		NewListFunc:               func() runtime.Object { return &templates.TemplateList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  templates.Resource("templates"),
		SingularQualifiedResource: templates.Resource("template"),

		CreateStrategy: strategy,
		UpdateStrategy: strategy,
		DeleteStrategy: strategy,

		TableConvertor: tableConvertor{},
	}
	options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, err
	}
	store.ResetFieldsStrategy = strategy.(templateStrategy)
	return &REST{NewRevisionedStore(store, templates.Kind("Template"), revisions), store}, nil
}

// Status returns the storage of templates/status over the same store: the rollout's progress,
// which the controller writes.
func (r *REST) Status() *StatusREST {
	statusStore := *r.store
	strategy := statusStrategy{r.store.UpdateStrategy.(templateStrategy)}
	statusStore.UpdateStrategy = strategy
	statusStore.ResetFieldsStrategy = strategy
	return &StatusREST{store: &statusStore}
}

// ShortNames lets users type kubectl get tpl.
func (*REST) ShortNames() []string { return []string{"tpl"} }

// Categories puts Templates in kubectl get stencil.
func (*REST) Categories() []string { return []string{"stencil"} }
