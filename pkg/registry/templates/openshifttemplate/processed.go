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

package openshifttemplate

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
)

// ProcessedREST serves processedtemplates.template.openshift.io as OpenShift does: POST a
// Template with its parameter values filled in, get back the Template (201) with its objects
// processed, its parameters' values (generated ones included), its message and labels
// substituted. Nothing is stored. Clients (oc process, oc new-app, fabric8, Ansible's
// openshift_process) make the List themselves.
type ProcessedREST struct {
	renderer *renderrest.Adapter
}

var _ interface {
	rest.Creater
	rest.Scoper
	rest.Storage
	rest.SingularNameProvider
	rest.StorageMetadata
	rest.GroupVersionAcceptor
} = &ProcessedREST{}

// NewProcessedREST returns the storage of processedtemplates in OpenShift's group.
func NewProcessedREST(renderer *renderrest.Adapter) *ProcessedREST {
	return &ProcessedREST{renderer: renderer}
}

// New returns the body Create decodes into.
func (*ProcessedREST) New() runtime.Object { return &templates.Template{} }

// Destroy has nothing to release.
func (*ProcessedREST) Destroy() {}

// NamespaceScoped is true: a template is processed in a namespace.
func (*ProcessedREST) NamespaceScoped() bool { return true }

// GetSingularName is the singular of processedtemplates.
func (*ProcessedREST) GetSingularName() string { return "processedtemplate" }

// ProducesMIMETypes adds none to the defaults.
func (*ProcessedREST) ProducesMIMETypes(string) []string { return nil }

// ProducesObject declares the answer, a Template, to OpenAPI.
func (*ProcessedREST) ProducesObject(string) interface{} { return openshift.Template{} }

// AcceptsGroupVersion lets in OpenShift's Template under both of its spellings.
func (*ProcessedREST) AcceptsGroupVersion(gv schema.GroupVersion) bool {
	return gv == openshift.SchemeGroupVersion || gv == openshift.LegacyGroupVersion
}

// Create processes the posted Template and answers it processed; its problems are one 422
// with a cause each, as OpenShift's.
func (r *ProcessedREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	t, ok := obj.(*templates.Template)
	if !ok {
		return nil, apierrors.NewBadRequest("not a template")
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	return r.renderer.RenderTemplate(ctx, render.Input{Template: t}, openshift.Kind("Template"))
}
