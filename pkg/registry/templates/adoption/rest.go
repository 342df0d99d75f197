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

// Package adoption serves adoptions: POST an Adoption (a TemplateInstance to create, whose
// spec.adoption names what it takes over) and get back the plan; without dryRun, an
// accepted plan creates the instance, whose controller takes the objects over.
package adoption

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
)

// Planner plans an adoption as the user of the context: what the controller's first pass of
// the instance would do, writing nothing. A refusal of the user (a right missing) is a 403,
// a problem of the template or the source a 422; a refused plan is a status whose objects
// say why, not an error.
type Planner interface {
	PlanAdoption(ctx context.Context, ti *templates.TemplateInstance) (*templates.AdoptionStatus, error)
}

// Instances is the TemplateInstances' storage.
type Instances interface {
	rest.Creater
	rest.Getter
}

// REST serves adoptions. create on adoptions is the permission to ask; creating the
// instance needs create on templateinstances too, and everything the plan does is checked
// object by object as the caller.
type REST struct {
	instances  Instances
	planner    Planner
	authorizer authorizer.Authorizer
}

var _ interface {
	rest.Creater
	rest.Scoper
	rest.Storage
	rest.SingularNameProvider
} = &REST{}

// NewREST returns the resource over the instances' storage; a nil planner (a server with no
// cluster) refuses every adoption.
func NewREST(instances Instances, planner Planner, authz authorizer.Authorizer) *REST {
	return &REST{instances: instances, planner: planner, authorizer: authz}
}

// New returns the kind of the request body.
func (*REST) New() runtime.Object { return &templates.Adoption{} }

// Destroy releases nothing.
func (*REST) Destroy() {}

// NamespaceScoped is true: an adoption takes over objects of one namespace.
func (*REST) NamespaceScoped() bool { return true }

// GetSingularName names one adoption.
func (*REST) GetSingularName() string { return "adoption" }

// Create plans the adoption of the body and, unless it is a dry run or the plan is refused,
// creates its TemplateInstance.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	in, ok := obj.(*templates.Adoption)
	if !ok {
		return nil, apierrors.NewBadRequest("the body must be an Adoption")
	}
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	ti := &templates.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Name: in.Name, Namespace: namespace, Labels: in.Labels, Annotations: in.Annotations},
		Spec:       in.Spec,
	}
	errs := validation.ValidateTemplateInstance(ti)
	if ti.Spec.Adoption == nil {
		errs = append(errs, field.Required(field.NewPath("spec", "adoption"), "an adoption names what the instance takes over: helmRelease, applySet or selector"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(templates.Kind("Adoption"), in.Name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewForbidden(templates.Resource("adoptions"), in.Name, fmt.Errorf("the request has no user"))
	}
	if r.planner == nil {
		return nil, apierrors.NewMethodNotSupported(templates.Resource("adoptions"), "create: this server has no cluster to adopt objects in")
	}
	decision, reason, err := r.authorizer.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: "create", APIGroup: templates.GroupName,
		APIVersion: "v1alpha1", Resource: "templateinstances", Namespace: namespace, Name: in.Name, ResourceRequest: true})
	if decision != authorizer.DecisionAllow {
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return nil, apierrors.NewForbidden(templates.Resource("templateinstances"), in.Name,
			fmt.Errorf("adopting creates TemplateInstance %s, which %s may not create: %s", in.Name, u.GetName(), reason))
	}
	if existing, err := r.instances.Get(ctx, in.Name, &metav1.GetOptions{}); err == nil {
		// How far it went is told only to who may read the instance.
		decision, _, _ := r.authorizer.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: "get", APIGroup: templates.GroupName,
			APIVersion: "v1alpha1", Resource: "templateinstances", Namespace: namespace, Name: in.Name, ResourceRequest: true})
		if decision != authorizer.DecisionAllow {
			return nil, apierrors.NewAlreadyExists(templates.Resource("templateinstances"), in.Name)
		}
		return r.existing(in, existing.(*templates.TemplateInstance))
	} else if !apierrors.IsNotFound(err) {
		return nil, err
	}
	ti.Spec.Requester = &templates.TemplateInstanceRequester{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
	status, err := r.planner.PlanAdoption(ctx, ti)
	if err != nil {
		return nil, err
	}
	out := &templates.Adoption{ObjectMeta: metav1.ObjectMeta{Name: in.Name, Namespace: namespace, CreationTimestamp: metav1.Now()},
		Spec: in.Spec, Status: *status}
	out.Spec.Requester = ti.Spec.Requester
	dryRun := options != nil && len(options.DryRun) > 0
	if refused(status) {
		if dryRun {
			out.Status.Phase, out.Status.Message = templates.AdoptionRefused, "the plan is refused: nothing would be touched"
			return out, nil
		}
		return nil, refusal(in.Name, status)
	}
	if dryRun {
		out.Status.Phase, out.Status.Message = templates.AdoptionPlanned, "a dry run: nothing was touched"
		return out, nil
	}
	ti.Spec.Requester = nil // the instances' strategy sets it from the caller
	created, err := r.instances.Create(ctx, ti, nil, &metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	out.ObjectMeta.UID = created.(*templates.TemplateInstance).UID
	out.Status.Phase, out.Status.Message = templates.AdoptionAdopting, "TemplateInstance "+in.Name+" created: its controller takes the objects over"
	return out, nil
}

// existing answers an adoption asked again: the same adoption by an instance that exists
// changes nothing and says how far it went; anything else is a conflict.
func (r *REST) existing(in *templates.Adoption, ti *templates.TemplateInstance) (runtime.Object, error) {
	if !apiequality.Semantic.DeepEqual(ti.Spec.Adoption, in.Spec.Adoption) {
		return nil, apierrors.NewAlreadyExists(templates.Resource("templateinstances"), in.Name)
	}
	out := &templates.Adoption{ObjectMeta: metav1.ObjectMeta{Name: ti.Name, Namespace: ti.Namespace, UID: ti.UID, CreationTimestamp: ti.CreationTimestamp},
		Spec: ti.Spec}
	if s := ti.Status.Adoption; s != nil {
		out.Status = *s.DeepCopy()
	} else {
		out.Status.Phase = templates.AdoptionAdopting
	}
	out.Status.Message = "TemplateInstance " + ti.Name + " exists with this adoption: nothing changed"
	return out, nil
}

// refused says whether any object refuses the plan.
func refused(s *templates.AdoptionStatus) bool {
	for _, o := range s.Objects {
		if len(o.Problems) > 0 || len(o.Immutable) > 0 {
			return true
		}
	}
	return false
}

// refusal is the 422 of a refused plan: one cause per problem, at the object's place in the
// plan.
func refusal(name string, s *templates.AdoptionStatus) error {
	var errs field.ErrorList
	for i, o := range s.Objects {
		p := field.NewPath("status", "objects").Index(i)
		what := o.Kind + " " + o.Name
		if o.Namespace != "" {
			what = o.Kind + " " + o.Namespace + "/" + o.Name
		}
		for _, f := range o.Immutable {
			errs = append(errs, field.Forbidden(p.Child("immutable"), fmt.Sprintf("%s: %s is immutable and the render changes it: adoption never recreates an object", what, f)))
		}
		for _, problem := range o.Problems {
			errs = append(errs, field.Forbidden(p.Child("problems"), what+": "+problem))
		}
	}
	return apierrors.NewInvalid(templates.Kind("Adoption"), name, errs)
}
