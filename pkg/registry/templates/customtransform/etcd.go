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

package customtransform

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry"
)

// REST is the etcd-backed storage of CustomTransforms.
type REST struct {
	registry.Store
}

var _ rest.StandardStorage = &REST{}
var _ rest.CategoriesProvider = &REST{}

// NewREST returns the storage of CustomTransforms.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	strategy := NewStrategy(scheme)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &templates.CustomTransform{} },
		NewListFunc:               func() runtime.Object { return &templates.CustomTransformList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  templates.Resource("customtransforms"),
		SingularQualifiedResource: templates.Resource("customtransform"),

		CreateStrategy:      strategy,
		UpdateStrategy:      strategy,
		DeleteStrategy:      strategy,
		ResetFieldsStrategy: strategy,

		TableConvertor: tableConvertor{},
	}
	options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, err
	}
	return &REST{registry.NewStore(store, templates.Kind("CustomTransform"))}, nil
}

// Categories puts CustomTransforms in kubectl get stencil.
func (*REST) Categories() []string { return []string{"stencil"} }

type tableConvertor struct{}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the CustomTransform."},
	{Name: "API Group", Type: "string", Description: "Group of the objects it binds to."},
	{Name: "Binds To", Type: "string", Description: "Resource or kind of the objects it binds to."},
	{Name: "Remove", Type: "string", Description: "Paths it removes."},
	{Name: "Age", Type: "string", Description: "Time since creation."},
}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		ct, ok := obj.(*templates.CustomTransform)
		if !ok {
			return nil, fmt.Errorf("not a CustomTransform: %T", obj)
		}
		bindsTo := ct.Spec.Resource
		if bindsTo == "" {
			bindsTo = "kind " + ct.Spec.Kind
		}
		group := ct.Spec.APIGroup
		if group == "" {
			group = "(core)"
		}
		return []interface{}{group, bindsTo, strings.Join(ct.Spec.Remove, ",")}, nil
	})
}
