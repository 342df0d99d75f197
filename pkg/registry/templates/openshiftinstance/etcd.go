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

// Package openshiftinstance serves OpenShift's template.openshift.io/v1 templateinstances over
// the storage of our TemplateInstances: one object, two groups, one strategy (the requester,
// validation and finalizer are ours) and one controller.
package openshiftinstance

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/registry"
	"stencil.dev/stencil/pkg/registry/templates/openshifttemplate"
	"stencil.dev/stencil/pkg/registry/templates/templateinstance"
)

// REST is the storage of templateinstances.template.openshift.io: our TemplateInstances' etcd
// prefix and codec, our strategy, OpenShift's table.
type REST struct {
	templateinstance.GuardedStore
}

var _ rest.StandardStorage = &REST{}
var _ rest.SingularNameProvider = &REST{}

// StatusREST is the storage of templateinstances/status: read only, since the status is our
// controller's, which writes it through templates.stencil.dev, and OpenShift's form of it
// cannot hold all of it.
type StatusREST struct {
	store *genericregistry.Store
}

var _ interface {
	rest.Getter
	rest.TableConvertor
} = &StatusREST{}

// NewREST returns the storage of OpenShift's templateinstances and of their status, sharing
// our TemplateInstances' storage; caps and guard are as for templateinstance.NewREST.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, caps templateinstance.Capabilities, guard *templateinstance.UninstallGuard) (*REST, *StatusREST, error) {
	strategy := newStrategy(templateinstance.NewStrategy(openshifttemplate.KindFirst{ObjectTyper: scheme}, caps))
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &templates.TemplateInstance{} },
		NewListFunc:               func() runtime.Object { return &templates.TemplateInstanceList{} },
		PredicateFunc:             templateinstance.Match,
		DefaultQualifiedResource:  openshift.Resource("templateinstances"),
		SingularQualifiedResource: openshift.Resource("templateinstance"),

		CreateStrategy:      strategy,
		UpdateStrategy:      strategy,
		DeleteStrategy:      strategy,
		ResetFieldsStrategy: strategy,

		TableConvertor: tableConvertor{},
	}
	options := &generic.StoreOptions{RESTOptions: openshifttemplate.SharedStorage{RESTOptionsGetter: optsGetter}, AttrFunc: templateinstance.GetAttrs}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, nil, err
	}
	return &REST{templateinstance.NewGuardedStore(registry.NewStore(store, openshift.Kind("TemplateInstance")), guard)}, &StatusREST{store: store}, nil
}

// New returns an empty TemplateInstance.
func (r *StatusREST) New() runtime.Object { return &templates.TemplateInstance{} }

// Destroy releases nothing: the main storage owns the store.
func (r *StatusREST) Destroy() {}

// Get reads the instance whose status is asked for.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// ConvertToTable prints the status as kubectl get does.
func (r *StatusREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// tableConvertor prints the columns oc get templateinstances prints: NAME, TEMPLATE.
type tableConvertor struct{}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the TemplateInstance."},
	{Name: "Template", Type: "string", Description: "Template name to be instantiated."},
}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		ti, ok := obj.(*templates.TemplateInstance)
		if !ok {
			return nil, fmt.Errorf("not a TemplateInstance: %T", obj)
		}
		return []interface{}{templateName(&ti.Spec)}, nil
	})
}

// templateName is the name of the template instantiated: the stored one's, or the inline
// one's metadata.name, as OpenShift prints spec.template.metadata.name.
func templateName(spec *templates.TemplateInstanceSpec) string {
	if spec.TemplateRef != nil {
		return spec.TemplateRef.Name
	}
	var head struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if spec.Template != nil {
		_ = json.Unmarshal(spec.Template.Raw, &head)
	}
	return head.Metadata.Name
}
