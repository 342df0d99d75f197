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
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/instance"
)

// AdoptionConfig is what an AdoptionPlanner is built from: the parts of the controller that
// plan.
type AdoptionConfig struct {
	Templates  instance.TemplateReader
	Renderer   instance.Renderer
	Appliers   instance.Appliers
	Mapper     meta.RESTMapper
	Authorizer authorizer.Authorizer
	SelfReview bool
	// HashKey keys the rendered hash, as the controller's (Config.HashKey).
	HashKey []byte
}

// AdoptionPlanner plans adoptions for the adoptions endpoint: what the controller's first pass
// of the instance would do, as the caller, writing nothing. It shares the controller's rules
// (the pass library's render, plan and authorization), as the preview does.
type AdoptionPlanner struct {
	c *Controller
}

// NewAdoptionPlanner returns the planner of cfg.
func NewAdoptionPlanner(cfg AdoptionConfig) (*AdoptionPlanner, error) {
	c := Config{Templates: cfg.Templates, Renderer: cfg.Renderer, Appliers: cfg.Appliers,
		Mapper: cfg.Mapper, Authorizer: cfg.Authorizer, SelfReview: cfg.SelfReview, HashKey: cfg.HashKey}
	pass, err := newPlanner(c)
	if err != nil {
		return nil, err
	}
	return &AdoptionPlanner{c: &Controller{cfg: c, pass: pass}}, nil
}

// PlanAdoption plans the adoption of ti, whose requester is the caller. A refusal of the
// caller's rights is a 403, a problem of the template or the source a 422, a failure of the
// cluster what the cluster answered; a refused plan is a status whose objects say why.
func (p *AdoptionPlanner) PlanAdoption(ctx context.Context, ti *templatesv1.TemplateInstance) (*templatesv1.AdoptionStatus, error) {
	a, err := p.c.cfg.Appliers.For(ti.Spec.Requester)
	if err != nil {
		return nil, err
	}
	ad, err := p.c.planAdoption(ctx, ti, a)
	if err != nil {
		return nil, planError(ti.Name, err)
	}
	return ad.status("", true), nil
}

// planError is the API error of a plan that could not be made.
func planError(name string, err error) error {
	var f *failure
	if !errors.As(err, &f) {
		if authz.IsUnavailable(err) {
			// The authorizer did not answer: a client retries.
			return apierrors.NewServiceUnavailable(err.Error())
		}
		if _, ok := err.(apierrors.APIStatus); ok {
			return err
		}
		return apierrors.NewInternalError(err)
	}
	switch f.Reason {
	case "Forbidden", "AuthorForbidden", "NoAuthor":
		return apierrors.NewForbidden(templates.Resource("adoptions"), name, errors.New(f.Message))
	case "AdoptionSource":
		return apierrors.NewInvalid(templates.Kind("Adoption"), name, field.ErrorList{field.Invalid(field.NewPath("spec", "adoption"), "", f.Message)})
	}
	return apierrors.NewInvalid(templates.Kind("Adoption"), name, field.ErrorList{field.Invalid(field.NewPath("spec"), "", f.Reason+": "+f.Message)})
}
