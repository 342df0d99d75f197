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

package templateinstance

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry"
)

// REST is the etcd-backed storage of TemplateInstances.
type REST struct {
	GuardedStore
}

var _ rest.StandardStorage = &REST{}
var _ rest.ShortNamesProvider = &REST{}
var _ rest.CategoriesProvider = &REST{}

// StatusREST is the storage of templateinstances/status.
type StatusREST struct {
	store *genericregistry.Store
}

var _ interface {
	rest.Patcher
	rest.ResetFieldsStrategy
} = &StatusREST{}

// NewREST returns the storage of TemplateInstances and of their status on a server that can do
// caps; guard checks every delete.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, caps Capabilities, guard *UninstallGuard) (*REST, *StatusREST, error) {
	strategy := NewStrategy(scheme, caps)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &templates.TemplateInstance{} },
		NewListFunc:               func() runtime.Object { return &templates.TemplateInstanceList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  templates.Resource("templateinstances"),
		SingularQualifiedResource: templates.Resource("templateinstance"),

		CreateStrategy:      strategy,
		UpdateStrategy:      strategy,
		DeleteStrategy:      strategy,
		ResetFieldsStrategy: strategy,

		TableConvertor: tableConvertor{},
	}
	options := &generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}
	if err := store.CompleteWithOptions(options); err != nil {
		return nil, nil, err
	}
	statusStore := *store
	statusStrategy := NewStatusStrategy(strategy)
	statusStore.UpdateStrategy = statusStrategy
	statusStore.ResetFieldsStrategy = statusStrategy
	return &REST{NewGuardedStore(registry.NewStore(store, templates.Kind("TemplateInstance")), guard)}, &StatusREST{store: &statusStore}, nil
}

// ShortNames lets kubectl get ti work.
func (*REST) ShortNames() []string { return []string{"ti"} }

// Categories puts TemplateInstances in kubectl get stencil.
func (*REST) Categories() []string { return []string{"stencil"} }

// New returns an empty TemplateInstance.
func (r *StatusREST) New() runtime.Object { return &templates.TemplateInstance{} }

// Destroy releases nothing: the main storage owns the store.
func (r *StatusREST) Destroy() {}

// Get reads the instance whose status is updated.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update writes the status only.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Subresources never create the object.
	return r.store.Update(ctx, name, registry.CheckedUpdate(objInfo, templates.Kind("TemplateInstance")), createValidation, updateValidation, false, options)
}

// GetResetFields says which fields the status writer does not manage.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable prints the status as kubectl get does.
func (r *StatusREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// tableConvertor prints the columns of kubectl get templateinstances.
type tableConvertor struct{}

var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the TemplateInstance."},
	{Name: "Template", Type: "string", Description: "The stored Template rendered, or (inline)."},
	{Name: "Ready", Type: "string", Description: "Status of the Ready condition, or its reason when it is not True."},
	{Name: "Objects", Type: "string", Description: "Objects ready / objects managed."},
	{Name: "Age", Type: "string", Description: "Time since creation."},
	{Name: "Revision", Type: "string", Priority: 1, Description: "The revision of the Template last applied; pinned when spec.templateRef.revision pins one."},
	{Name: "Policy", Type: "string", Priority: 1, Description: "spec.updatePolicy: Automatic (the default without a pin) or Manual."},
}

func (tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	table, err := registry.ConvertToTable(obj, tableOptions, columns, func(obj runtime.Object) ([]interface{}, error) {
		ti, ok := obj.(*templates.TemplateInstance)
		if !ok {
			return nil, fmt.Errorf("not a TemplateInstance: %T", obj)
		}
		template := "(inline)"
		if ti.Spec.TemplateRef != nil {
			template = ti.Spec.TemplateRef.Name
		}
		ready := "Unknown"
		if c := meta.FindStatusCondition(ti.Status.Conditions, v1alpha1.TemplateInstanceReady); c != nil {
			ready = string(c.Status)
			if c.Status != metav1.ConditionTrue && c.Reason != "" {
				ready = c.Reason
			}
		}
		return []interface{}{template, ready, objectsCell(&ti.Status)}, nil
	})
	if err != nil {
		return nil, err
	}
	// The columns of -o wide come after the age, which registry.ConvertToTable puts last.
	for i := range table.Rows {
		ti, ok := table.Rows[i].Object.Object.(*templates.TemplateInstance)
		if !ok {
			continue
		}
		revision, policy := "-", string(EffectivePolicy(&ti.Spec))
		if r := ti.Status.TemplateRevision; r != nil {
			revision = fmt.Sprint(r.Number)
		}
		if ref := ti.Spec.TemplateRef; ref != nil && ref.Revision > 0 {
			revision += fmt.Sprintf(" (pinned %d)", ref.Revision)
		}
		if ti.Spec.TemplateRef == nil {
			revision, policy = "-", "-"
		}
		table.Rows[i].Cells = append(table.Rows[i].Cells, revision, policy)
	}
	return table, nil
}

// objectsCell is the Objects column: objects ready / objects the controller applied, and for a
// published instance the objects of its artifact, which Flux applies and Stencil does not see
// become ready (the Applied condition says whether Flux applied them).
func objectsCell(status *templates.TemplateInstanceStatus) string {
	readyObjects := 0
	for _, o := range status.Objects {
		if o.Ready {
			readyObjects++
		}
	}
	applied := fmt.Sprintf("%d/%d", readyObjects, len(status.Objects))
	if status.Artifact == nil {
		return applied
	}
	published := fmt.Sprintf("%d published", status.Artifact.Objects)
	if len(status.Objects) == 0 {
		return published
	}
	return applied + " + " + published
}

// EffectivePolicy is the instance's update policy: the one written, else Manual for a pinned
// instance and Automatic for any other.
func EffectivePolicy(spec *templates.TemplateInstanceSpec) templates.UpdatePolicy {
	switch {
	case spec.UpdatePolicy != "":
		return spec.UpdatePolicy
	case spec.TemplateRef != nil && spec.TemplateRef.Revision > 0:
		return templates.UpdatePolicyManual
	}
	return templates.UpdatePolicyAutomatic
}
