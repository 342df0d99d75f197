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

func (strategy) NamespaceScoped() bool { return false }

// GetResetFields says the server owns status: clients' apply never manages it.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"templates.stencil.dev/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

// PrepareForCreate starts the generation and, since invalid paths never get stored, reports
// the spec as accepted.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ct := obj.(*templates.CustomTransform)
	ct.Generation = 1
	ct.Status = templates.CustomTransformStatus{}
	setAccepted(ct)
}

// PrepareForUpdate counts spec changes in the generation and keeps the status the server's.
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ct, oldCT := obj.(*templates.CustomTransform), old.(*templates.CustomTransform)
	ct.Status = oldCT.Status
	if !apiequality.Semantic.DeepEqual(ct.Spec, oldCT.Spec) {
		ct.Generation = oldCT.Generation + 1
	}
	setAccepted(ct)
}

func setAccepted(ct *templates.CustomTransform) {
	ct.Status.ObservedGeneration = ct.Generation
	meta.SetStatusCondition(&ct.Status.Conditions, metav1.Condition{
		Type:               "Accepted",
		Status:             metav1.ConditionTrue,
		ObservedGeneration: ct.Generation,
		Reason:             "PathsValid",
		Message:            fmt.Sprintf("%d paths are removed from the objects this binds to", len(ct.Spec.Remove)),
	})
}

// Validate reports every problem of a new CustomTransform in one list: the API's checks and
// the JSONPath syntax of spec.remove.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	ct := obj.(*templates.CustomTransform)
	return append(validation.ValidateCustomTransform(ct), pathErrors(ct)...)
}

// pathErrors checks spec.remove as processing builds the rule, with remove.RuleFor, so that
// what is stored always parses and stencil process --local refuses what this refuses.
func pathErrors(ct *templates.CustomTransform) field.ErrorList {
	_, errs := remove.RuleFor(ct)
	return errs
}

func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

func (strategy) AllowCreateOnUpdate(context.Context) bool { return false }

func (strategy) AllowUnconditionalUpdate(context.Context) bool { return true }

func (strategy) Canonicalize(runtime.Object) {}

// ValidateUpdate checks an update as Validate checks a create, with the metadata rules of updates.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ct := obj.(*templates.CustomTransform)
	return append(validation.ValidateCustomTransformUpdate(ct, old.(*templates.CustomTransform)), pathErrors(ct)...)
}

func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
