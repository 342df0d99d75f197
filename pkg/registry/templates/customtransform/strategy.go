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

// Package customtransform holds the storage of CustomTransforms.
package customtransform

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/transform/remove"
)

// strategy implements the create, update and delete behaviour of CustomTransforms.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

var _ rest.RESTCreateUpdateStrategy = strategy{}
var _ rest.ResetFieldsStrategy = strategy{}

// NewStrategy returns the strategy of CustomTransforms.
func NewStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{typer, names.SimpleNameGenerator}
}

// GetAttrs returns the labels and selectable fields of a CustomTransform.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	ct, ok := obj.(*templates.CustomTransform)
	if !ok {
		return nil, nil, fmt.Errorf("not a CustomTransform: %T", obj)
	}
	return labels.Set(ct.Labels), generic.ObjectMetaFieldsSet(&ct.ObjectMeta, false), nil
}

// Match is the filter of list and watch requests.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}

// NamespaceScoped is false: CustomTransforms are the admin's policy for every namespace.
func (strategy) NamespaceScoped() bool { return false }

// GetResetFields says the server owns status: clients' apply never manages it.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"templates.stencil.dev/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

// PrepareForCreate starts the generation and writes the server's status; a status sent by the
// client is dropped.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ct := obj.(*templates.CustomTransform)
	ct.Generation = 1
	ct.Status = templates.CustomTransformStatus{}
	setAccepted(ct)
}

// PrepareForUpdate counts spec changes in the generation and keeps the status the server's.
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ct, oldCT := obj.(*templates.CustomTransform), old.(*templates.CustomTransform)
	// The status is copied, not shared: setAccepted must not edit the object being replaced.
	ct.Status = *oldCT.Status.DeepCopy()
	ct.Generation = oldCT.Generation
	if !apiequality.Semantic.DeepEqual(ct.Spec, oldCT.Spec) {
		ct.Generation++
	}
	setAccepted(ct)
}

const (
	// conditionAccepted says whether the spec in force is the one of metadata.generation.
	conditionAccepted = "Accepted"
	// reasonValid is the only reason there is: an invalid spec is refused at create and update,
	// so it never becomes the stored one.
	reasonValid = "Valid"
)

// setAccepted reports the spec of the current generation as accepted. Whether spec.apiGroup
// and spec.resource or spec.kind name an existing kind is not known here: it depends on the
// cluster's discovery when a template is processed, and a binding that matches no object
// simply removes nothing. The condition keeps its lastTransitionTime while it stays True.
func setAccepted(ct *templates.CustomTransform) {
	ct.Status.ObservedGeneration = ct.Generation
	meta.SetStatusCondition(&ct.Status.Conditions, metav1.Condition{
		Type:               conditionAccepted,
		Status:             metav1.ConditionTrue,
		ObservedGeneration: ct.Generation,
		Reason:             reasonValid,
		Message:            fmt.Sprintf("the spec is valid: %d paths are removed from the objects this binds to", len(ct.Spec.Remove)),
	})
}

// Validate reports every problem of a new CustomTransform in one list: the API's checks and
// the JSONPath syntax of spec.remove.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	ct := obj.(*templates.CustomTransform)
	return validation.SortByField(append(validation.ValidateCustomTransform(ct), pathErrors(ct)...))
}

// pathErrors checks spec.remove with the parser processing uses, so that what is stored
// always parses. Paths beyond the API's limits are not parsed: the limits' errors say what to
// fix, and 10,000 broken paths would otherwise answer with 10,000 causes.
func pathErrors(ct *templates.CustomTransform) field.ErrorList {
	if !validation.RemovePathsWithinLimits(ct.Spec.Remove) {
		return nil // the limits were reported; paths past them are not parsed
	}
	_, errs := remove.RuleFor(ct)
	return errs
}

// WarningsOnCreate has none: every problem found at write time refuses the object.
func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// AllowCreateOnUpdate is false: a CustomTransform is created with POST.
func (strategy) AllowCreateOnUpdate(context.Context) bool { return false }

// AllowUnconditionalUpdate lets kubectl replace work without a resourceVersion.
func (strategy) AllowUnconditionalUpdate(context.Context) bool { return true }

// Canonicalize leaves the object as the client wrote it.
func (strategy) Canonicalize(runtime.Object) {}

// ValidateUpdate checks an update as Validate checks a create, with the metadata rules of updates.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ct := obj.(*templates.CustomTransform)
	return validation.SortByField(append(validation.ValidateCustomTransformUpdate(ct, old.(*templates.CustomTransform)), pathErrors(ct)...))
}

// WarningsOnUpdate has none, as WarningsOnCreate.
func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
