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

// Package openshifttemplate serves OpenShift's template.openshift.io/v1 templates over the
// storage of our Templates: one object, two groups, as Kubernetes serves Events in core and
// events.k8s.io. Its processedtemplates are processedtemplate.NewOpenShiftREST.
package openshifttemplate

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/registry/templates/template"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// REST is the storage of templates.template.openshift.io: our Templates' etcd prefix and
// codec, our strategy, OpenShift's table.
type REST struct {
	template.RevisionedStore
}

var _ rest.StandardStorage = &REST{}
var _ rest.SingularNameProvider = &REST{}

// NewREST returns the storage of OpenShift's templates, sharing our Templates' storage.
// Its writes keep revisions as ours do, through revisions (nil for none), and are type-checked
// as ours are, by types (nil for none).
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, plugins plugin.PolicyFunc, revisions *templaterevision.Writer, types *templatecheck.Types) (*REST, error) {
	strategy := template.NewStrategy(KindFirst{scheme}, plugins, types)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &templates.Template{} },
		NewListFunc:               func() runtime.Object { return &templates.TemplateList{} },
		PredicateFunc:             template.Match,
		DefaultQualifiedResource:  openshift.Resource("templates"),
		SingularQualifiedResource: openshift.Resource("template"),

		CreateStrategy: strategy,
		UpdateStrategy: strategy,
		DeleteStrategy: strategy,
		TableConvertor: tableConvertor{},
	}
	options := &generic.StoreOptions{RESTOptions: SharedStorage{optsGetter}, AttrFunc: template.GetAttrs}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, err
	}
	return &REST{template.NewRevisionedStore(store, openshift.Kind("Template"), revisions)}, nil
}

// SharedStorage gives each resource of OpenShift's group the storage options of ours of the
// same name (templates, templateinstances): the same etcd prefix and the same storage version,
// so that an object written through either group is the same object.
type SharedStorage struct{ generic.RESTOptionsGetter }

// GetRESTOptions returns the options of our resource of the same name.
func (s SharedStorage) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	if resource.Group == openshift.GroupName {
		resource = templates.Resource(resource.Resource)
	}
	return s.RESTOptionsGetter.GetRESTOptions(resource, example)
}

// KindFirst names an internal type served by both groups by OpenShift's group first, so that
// the errors of a storage of OpenShift's group say Template.template.openshift.io or
// TemplateInstance.template.openshift.io as OpenShift's do.
type KindFirst struct{ runtime.ObjectTyper }

// ObjectKinds returns the kinds of obj, OpenShift's first.
func (t KindFirst) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	kinds, unversioned, err := t.ObjectTyper.ObjectKinds(obj)
	for i, k := range kinds {
		if k.Group == openshift.GroupName {
			kinds = append([]schema.GroupVersionKind{k}, append(kinds[:i:i], kinds[i+1:]...)...)
			break
		}
	}
	return kinds, unversioned, err
}
