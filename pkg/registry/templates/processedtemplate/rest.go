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

// Package processedtemplate serves processedtemplates: POST a Template, get back what it
// processes into. Our group answers a v1 List; OpenShift's group answers the processed Template,
// as OpenShift does. Nothing is stored.
package processedtemplate

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
)

// REST processes the Template in the request body.
type REST struct {
	renderer *renderrest.Adapter
	// openShift answers the processed Template (201) instead of a List, and takes only
	// OpenShift's Templates: OpenShift clients (oc process, oc new-app, fabric8, Ansible's
	// openshift_process) make the List themselves.
	openShift bool
}

var _ interface {
	rest.Creater
	rest.Scoper
	rest.Storage
	rest.SingularNameProvider
	rest.StorageMetadata
	rest.GroupVersionAcceptor
	rest.GroupVersionKindProvider
} = &REST{}

// Kind is the kind processedtemplates reports in our group's discovery. Its body is a Template,
// but reporting Template there would give the kind two resources, and clients that look a
// resource up by kind (Python's dynamic client, and so Ansible's k8s module) refuse an
// ambiguous kind. kube-apiserver does the same for pods/eviction and the scale subresources:
// the resource reports a kind of its own. The API server registers Kind as a second name of
// v1alpha1.Template, so that a body of either kind is taken.
const Kind = "ProcessedTemplate"

// NewREST returns the processedtemplates storage of our group.
func NewREST(renderer *renderrest.Adapter) *REST {
	return &REST{renderer: renderer}
}

// NewOpenShiftREST returns the processedtemplates storage of template.openshift.io.
func NewOpenShiftREST(renderer *renderrest.Adapter) *REST {
	return &REST{renderer: renderer, openShift: true}
}

// New returns the kind of the request body: a Template.
func (*REST) New() runtime.Object { return &templates.Template{} }

// Destroy releases nothing: the resource has no state.
func (*REST) Destroy() {}

// NamespaceScoped is true: templates are processed in a namespace.
func (*REST) NamespaceScoped() bool { return true }

// GetSingularName names one processedtemplate.
func (*REST) GetSingularName() string { return "processedtemplate" }

// ProducesMIMETypes adds nothing to the defaults.
func (*REST) ProducesMIMETypes(string) []string { return nil }

// ProducesObject tells OpenAPI what the answer is: a v1 List, or OpenShift's Template.
func (r *REST) ProducesObject(string) interface{} {
	if r.openShift {
		return openshift.Template{}
	}
	return v1alpha1.List{}
}

// GroupVersionKind is Kind in our group. In OpenShift's group it is Template, as OpenShift
// reports it: OpenShift's clients know that processedtemplates shares Template with templates.
func (r *REST) GroupVersionKind(containingGV schema.GroupVersion) schema.GroupVersionKind {
	if r.openShift {
		return containingGV.WithKind("Template")
	}
	return containingGV.WithKind(Kind)
}

// AcceptsGroupVersion lets in OpenShift's Templates under both of their spellings, and in our
// group our Templates too.
func (r *REST) AcceptsGroupVersion(gv schema.GroupVersion) bool {
	return gv == openshift.SchemeGroupVersion || gv == openshift.LegacyGroupVersion || (!r.openShift && gv == v1alpha1.SchemeGroupVersion)
}

// Create processes the Template of the body; its problems are one 422 with a cause each.
// Dry-run changes nothing, since nothing is stored.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	t, ok := obj.(*templates.Template)
	if !ok {
		return nil, apierrors.NewBadRequest("the body must be a Template")
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if r.openShift {
		return r.renderer.RenderTemplate(ctx, render.Input{Template: t}, openshift.Kind("Template"))
	}
	return r.renderer.Render(ctx, render.Input{Template: t})
}
