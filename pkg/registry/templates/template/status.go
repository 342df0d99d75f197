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

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/registry"
)

// A Template's status (the progress of its rollout) is the controller's: it is written only
// through templates/status, as a Deployment's is, so that the right to edit a Template (its
// content, its rollout's waves, pausing it) never lets anyone say which instances a rollout
// moved. No role grants writing it; the server's controller writes it with its own identity.

// GetResetFields says the status is not the main resource's writer's.
func (templateStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"templates.stencil.dev/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

// statusStrategy is the strategy of templates/status: everything but the status is kept as
// stored.
type statusStrategy struct {
	templateStrategy
}

// PrepareForUpdate keeps everything but the status as stored.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	t, oldT := obj.(*templates.Template), old.(*templates.Template)
	status := t.Status
	*t = *oldT.DeepCopy()
	t.Status = status
	metav1.ResetObjectMetaForStatus(&t.ObjectMeta, &oldT.ObjectMeta)
}

// ValidateUpdate checks the metadata rules of an update: the content was validated when
// it was written and is kept as stored.
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	t, oldT := obj.(*templates.Template), old.(*templates.Template)
	return apimachineryvalidation.ValidateObjectMetaUpdate(&t.ObjectMeta, &oldT.ObjectMeta, field.NewPath("metadata"))
}

// WarningsOnUpdate has none.
func (statusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetResetFields says everything but the status is not the status writer's.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"templates.stencil.dev/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("message"),
			fieldpath.MakePathOrDie("parameters"), fieldpath.MakePathOrDie("rules"), fieldpath.MakePathOrDie("objects"),
			fieldpath.MakePathOrDie("objectLabels"), fieldpath.MakePathOrDie("generators"), fieldpath.MakePathOrDie("transformers"),
			fieldpath.MakePathOrDie("transformersFrom"), fieldpath.MakePathOrDie("transformerOverrides"),
			fieldpath.MakePathOrDie("transformerOrder"), fieldpath.MakePathOrDie("dialect"), fieldpath.MakePathOrDie("author"),
			fieldpath.MakePathOrDie("revision"), fieldpath.MakePathOrDie("rollout")),
	}
}

// StatusREST is the storage of templates/status.
type StatusREST struct {
	store *genericregistry.Store
}

var _ interface {
	rest.Patcher
	rest.ResetFieldsStrategy
} = &StatusREST{}

// New returns an empty Template.
func (r *StatusREST) New() runtime.Object { return &templates.Template{} }

// Destroy releases nothing: the main storage owns the store.
func (r *StatusREST) Destroy() {}

// Get reads the Template whose status is updated.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update writes the status only; it makes no revision.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Subresources never create the object.
	return r.store.Update(ctx, name, registry.CheckedUpdate(objInfo, templates.Kind("Template")), createValidation, updateValidation, false, options)
}

// GetResetFields says which fields the status writer does not manage.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable prints the Template as kubectl get does.
func (r *StatusREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}
