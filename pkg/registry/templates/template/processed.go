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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/expand"
)

// ProcessedREST serves templates/{name}/processed: POST TemplateParameters, get back the stored
// template's objects processed, as a v1 List.
type ProcessedREST struct {
	templates rest.Getter
	renderer  *renderrest.Adapter
}

var _ interface {
	rest.NamedCreater
	rest.Storage
	rest.StorageMetadata
} = &ProcessedREST{}

// NewProcessedREST returns the subresource; templates reads the stored template, which needs no
// authorization of its own: create on templates/processed is the permission to process.
func NewProcessedREST(templates rest.Getter, renderer *renderrest.Adapter) *ProcessedREST {
	return &ProcessedREST{templates: templates, renderer: renderer}
}

// New returns the kind of the request body.
func (*ProcessedREST) New() runtime.Object { return &templates.TemplateParameters{} }

// Destroy releases nothing; the parent storage owns the store.
func (*ProcessedREST) Destroy() {}

// ProducesMIMETypes adds nothing to the defaults.
func (*ProcessedREST) ProducesMIMETypes(string) []string { return nil }

// ProducesObject tells OpenAPI that the answer is a v1 List.
func (*ProcessedREST) ProducesObject(string) interface{} { return v1alpha1.List{} }

// Create processes the stored template name with the parameters of the body.
func (r *ProcessedREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	params, ok := obj.(*templates.TemplateParameters)
	if !ok {
		return nil, apierrors.NewBadRequest("the body must be TemplateParameters")
	}
	errs := append(validation.ValidateTemplateParameters(params, name), propertyErrors(params)...)
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(templates.Kind("TemplateParameters"), name, validation.SortByField(errs))
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	stored, err := r.templates.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return r.renderer.Render(ctx, render.Input{
		Template: stored.(*templates.Template),
		Stored:   true,
		Request: process.Request{
			Parameters:              params.Parameters,
			Labels:                  params.Labels,
			IgnoreUnknownParameters: params.IgnoreUnknownParameters,
		},
		Properties:   params.Properties,
		Destinations: params.Destinations,
	})
}

// propertyErrors checks the names of the expansion properties, of the request and of each
// destination, by the expansion engine's rule.
func propertyErrors(params *templates.TemplateParameters) field.ErrorList {
	errs := expand.ValidateProperties(params.Properties, field.NewPath("properties"))
	for i, d := range params.Destinations {
		errs = append(errs, expand.ValidateProperties(d.Properties, field.NewPath("destinations").Index(i).Child("properties"))...)
	}
	return errs
}
