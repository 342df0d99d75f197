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
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// Previewer previews a candidate content of a stored Template across its instances: the
// TemplateInstance controller's package holds the server's, which does what a pass would.
type Previewer interface {
	// PreviewTemplate previews candidate (a content named and stamped as stored's, written by
	// the caller of ctx), or, when it is nil, stored's revision number.
	PreviewTemplate(ctx context.Context, stored, candidate *templates.Template, revision int64, live bool) (*templates.TemplatePreviewStatus, error)
}

// PreviewREST serves templates/{name}/preview: POST a TemplatePreview with a candidate (a
// Template body or a revision number) and get it back with its status, what the candidate
// would do to each instance of the Template. Nothing is stored. create on templates/preview
// is the permission; reading the stored Template needs none of its own, as processing.
type PreviewREST struct {
	templates  rest.Getter
	previewer  Previewer
	strategy   templateStrategy
	authorizer authorizer.Authorizer
}

var _ interface {
	rest.NamedCreater
	rest.Storage
} = &PreviewREST{}

// NewPreviewREST returns the subresource: templates reads the stored Template, plugins says
// what a candidate may use (as a stored Template), authz decides which Templates a candidate
// may import (those the caller may get, as processedtemplates).
func NewPreviewREST(templates rest.Getter, previewer Previewer, typer runtime.ObjectTyper, plugins plugin.PolicyFunc, authz authorizer.Authorizer) *PreviewREST {
	return &PreviewREST{templates: templates, previewer: previewer, strategy: NewStrategy(typer, plugins, nil).(templateStrategy), authorizer: authz}
}

// New returns the kind of the request body.
func (*PreviewREST) New() runtime.Object { return &templates.TemplatePreview{} }

// Destroy releases nothing; the parent storage owns the store.
func (*PreviewREST) Destroy() {}

// Create previews the candidate of the body for the stored Template name.
func (r *PreviewREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	in, ok := obj.(*templates.TemplatePreview)
	if !ok {
		return nil, apierrors.NewBadRequest("the body must be a TemplatePreview")
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	switch {
	case (in.Spec.Template == nil) == (in.Spec.Revision == 0):
		errs = append(errs, field.Required(spec.Child("template"), "exactly one of template (a candidate Template) and revision (a stored revision's number) is required"))
	case in.Spec.Revision < 0:
		errs = append(errs, field.Invalid(spec.Child("revision"), in.Spec.Revision, "must be the number of a revision of the Template"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(templates.Kind("TemplatePreview"), name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	got, err := r.templates.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	stored := got.(*templates.Template)
	var candidate *templates.Template
	if in.Spec.Template != nil {
		if candidate, err = r.candidate(ctx, stored, in.Spec.Template.Raw); err != nil {
			return nil, err
		}
	}
	status, err := r.previewer.PreviewTemplate(ctx, stored, candidate, in.Spec.Revision, in.Spec.Live)
	if err != nil {
		return nil, err
	}
	// The answer does not repeat the candidate body: it may be large, and the caller has it.
	out := &templates.TemplatePreview{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: stored.Namespace, CreationTimestamp: metav1.Now()},
		Spec: templates.TemplatePreviewSpec{Revision: in.Spec.Revision, Live: in.Spec.Live}, Status: *status}
	return out, nil
}

// candidate reads a candidate body as the content of stored, checked as an update of stored
// would be (a candidate the store would refuse is a 422 naming spec.template's fields),
// stamped with the revision it would get, its author the caller. Its imports must be
// Templates the caller may get.
func (r *PreviewREST) candidate(ctx context.Context, stored *templates.Template, raw []byte) (*templates.Template, error) {
	path := field.NewPath("spec", "template")
	t, _, err := process.DecodeTemplate(raw)
	if err != nil {
		return nil, apierrors.NewInvalid(templates.Kind("TemplatePreview"), stored.Name, field.ErrorList{field.Invalid(path, "", err.Error())})
	}
	t.ObjectMeta = metav1.ObjectMeta{Name: stored.Name, Namespace: stored.Namespace}
	if errs := r.strategy.check(ctx, t, validation.ValidateTemplate(t)); len(errs) > 0 {
		for _, e := range errs {
			e.Field = path.String() + "." + strings.TrimPrefix(e.Field, ".")
		}
		return nil, apierrors.NewInvalid(templates.Kind("TemplatePreview"), stored.Name, errs)
	}
	for _, imp := range t.TransformersFrom {
		if err := r.mayGet(ctx, imp.Name); err != nil {
			return nil, err
		}
	}
	_, hash, err := templaterevision.Canonical(t)
	if err != nil {
		return nil, apierrors.NewInvalid(templates.Kind("TemplatePreview"), stored.Name, field.ErrorList{field.Invalid(path, "", err.Error())})
	}
	number := int64(1)
	if s := stored.Revision; s != nil {
		number = s.Number
		if s.Hash != hash {
			number++
		}
	}
	t.Revision = &templates.RevisionStamp{Number: number, Hash: hash}
	t.Author = authorFrom(ctx)
	// The content's hash names it: the plan is cached under it, for every instance.
	t.UID = types.UID("preview-" + strings.TrimPrefix(hash, templaterevision.HashPrefix))
	return t, nil
}

// mayGet allows importing Template name into a candidate only to a caller who may get it.
func (r *PreviewREST) mayGet(ctx context.Context, name string) error {
	if r.authorizer == nil {
		return nil
	}
	user, _ := genericapirequest.UserFrom(ctx)
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	return authz.Require(ctx, r.authorizer, authorizer.AttributesRecord{User: user, Verb: "get", APIGroup: templates.GroupName,
		APIVersion: v1alpha1.SchemeGroupVersion.Version, Resource: "templates", Namespace: namespace, Name: name, ResourceRequest: true},
		func(reason string) error {
			return apierrors.NewForbidden(templates.Resource("templates"), name, fmt.Errorf("the candidate imports its transformers, which needs get: %s", reason))
		})
}
