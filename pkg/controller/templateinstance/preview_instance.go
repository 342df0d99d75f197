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
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
)

// previewed is one rendering of an instance for a preview: the objects planned as the
// controller plans them, and the values the preview must not show.
type previewed struct {
	out  *render.Output
	plan []*planned
	// generated are the generated parameters' values.
	generated map[string]string
	hidden    []string
	// fresh says a generated parameter had no kept value: what is applied will differ.
	fresh bool
}

// instance previews the candidate for one instance. Every problem of the instance is its
// classification; an error is the request's (time, memory, the cluster).
func (s *previewState) instance(ctx context.Context, ti *templatesv1.TemplateInstance) (templates.InstancePreview, error) {
	out := templates.InstancePreview{Name: ti.Name}
	if r := ti.Status.TemplateRevision; r != nil {
		out.FromRevision = r.Number
	}
	// m hides, everywhere in the answer, the values the caller may not see, as they are learnt.
	m := &masker{}
	classify := func(c templates.PreviewClassification, err error) (templates.InstancePreview, error) {
		out.Classification = c
		var f *failure
		switch {
		case errors.As(err, &f):
			out.Message = f.reason + ": " + f.message
		case err != nil:
			if _, ok := err.(apierrors.APIStatus); !ok || ctx.Err() != nil {
				return out, err
			}
			status := err.(apierrors.APIStatus).Status()
			if apierrors.IsTooManyRequests(err) || apierrors.IsTimeout(err) {
				return out, err
			}
			out.Message = status.Message
			if status.Details != nil && len(status.Details.Causes) > 0 {
				out.Causes = status.Details.Causes
				out.Message = "the candidate does not render for the instance"
				if c == templates.PreviewBreaksParameters {
					out.Message = "the instance's values do not fit the candidate's parameters"
				}
			}
		}
		m.scrub(&out)
		return out, nil
	}
	if ti.Spec.Requester == nil || ti.Spec.Requester.Username == "" {
		return classify(templates.PreviewForbidden, fail("NoRequester", "spec.requester is empty"))
	}
	requester := requesterInfo(ti.Spec.Requester)
	ctx = genericapirequest.WithNamespace(genericapirequest.WithUser(ctx, requester), ti.Namespace)
	attrs := authorizer.AttributesRecord{User: requester, Verb: "create", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Namespace: ti.Namespace, Resource: "templates", Subresource: "processed", Name: s.template.Name, ResourceRequest: true}
	if allowed, reason := s.c.authorize(ctx, attrs); !allowed {
		return classify(templates.PreviewForbidden, fail("Forbidden", "%s may not process %s: %s", requester.GetName(), describeAttrs(attrs), reason))
	}

	// What the instance runs now, with its values: the baseline, unless live.
	var base *previewed
	var baseProblem string
	if !s.live {
		bt, err := s.baselineTemplate(ctx, ti)
		if err == nil {
			var r *previewed
			r, err = s.render(ctx, ti, bt, nil)
			m.values = append(m.values, r.hidden...)
			if err == nil {
				base = r
			}
		}
		var f *failure
		switch {
		case errors.As(err, &f):
			baseProblem = f.message
		case err != nil && !isRefusal(err):
			return out, err
		case err != nil:
			baseProblem = statusMessage(err)
		}
	}
	var kept map[string]string
	if base != nil {
		kept = base.generated
	}
	cand, err := s.render(ctx, ti, s.candidate, kept)
	m.values = append(m.values, cand.hidden...)
	if err != nil {
		if breaks(err) {
			return classify(templates.PreviewBreaksParameters, err)
		}
		return classify(templates.PreviewFailed, err)
	}
	// An instance whose generated values are not kept yet gets new ones when applied: no
	// plan can say what that applies.
	if !cand.fresh {
		out.RenderedHash = inventory.OutputHash(cand.out.Objects)
	}

	keep := map[string]bool{}
	for _, p := range cand.plan {
		keep[inventory.ObjectKey(p.ref)] = true
	}
	old := append([]templatesv1.TemplateInstanceObject(nil), ti.Status.Objects...)
	if base != nil {
		for _, p := range base.plan {
			if !p.generated {
				old = append(old, p.ref)
			}
		}
	}
	authors := append([]author{s.author}, authorsOf(cand.out.Imported)...)
	var a Applier
	if s.p.cfg.Appliers != nil {
		if a, err = s.p.cfg.Appliers.For(ti.Spec.Requester); err != nil {
			return out, err
		}
	}
	if err := s.c.authorizePlan(ctx, ti, a, cand.plan, authors, s.c.pruneTargets(dedupe(old), keep)); err != nil {
		return classify(templates.PreviewForbidden, err)
	}

	if s.live {
		out.Objects, err = s.liveChanges(ctx, ti, a, cand.plan, m)
		if err != nil {
			return classify(templates.PreviewFailed, err)
		}
	} else {
		var before []*planned
		if base != nil {
			before = base.plan
		}
		out.Objects = changes(before, cand.plan, m)
	}
	for _, removed := range removedObjects(ti.Status.Objects, out.Objects, keep) {
		out.Objects = append(out.Objects, removed)
	}
	retained := append([]templatesv1.TemplateInstanceObject(nil), ti.Status.Objects...)
	if base != nil {
		for _, p := range base.plan {
			retained = append(retained, p.ref)
		}
	}
	out.Objects = releaseRetained(out.Objects, retained)
	c := templates.PreviewUnchanged
	for _, o := range out.Objects {
		switch {
		case o.Change == "Removed":
			c = templates.PreviewWouldPrune
		case c == templates.PreviewUnchanged:
			c = templates.PreviewChanged
		}
	}
	var notes []string
	if baseProblem != "" {
		notes = append(notes, "what the instance runs now does not render ("+baseProblem+"): every object is shown as added")
	}
	if cand.fresh {
		notes = append(notes, "its generated values are not kept yet: new ones are generated when it is applied, so it has no rendered hash")
	}
	out.Message = strings.Join(notes, "; ")
	return classify(c, nil)
}

// baselineTemplate is what the instance runs now: the revision it applied last, else the one
// it would run.
func (s *previewState) baselineTemplate(ctx context.Context, ti *templatesv1.TemplateInstance) (*templates.Template, error) {
	number := TargetRevision(ti, s.template)
	if r := ti.Status.TemplateRevision; r != nil {
		number = r.Number
	}
	if number == 0 {
		return s.template, nil
	}
	rt, err := s.revision(ctx, number)
	if apierrors.IsNotFound(err) {
		return nil, fail("RevisionNotFound", "revision %d, which the instance runs, is no longer kept", number)
	}
	return rt, err
}

// render renders t for the instance with its values, as the controller would, and plans the
// objects. Generated parameters take the values the instance keeps, else those in kept (the
// baseline's, so that both sides of the comparison share them), else new ones, which are
// hidden. It returns what must be hidden even when it fails: a refusal may quote a value.
func (s *previewState) render(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template, kept map[string]string) (*previewed, error) {
	r := &previewed{}
	out, err := s.renderInto(ctx, r, ti, t, kept)
	r.out = out
	return r, err
}

func (s *previewState) renderInto(ctx context.Context, r *previewed, ti *templatesv1.TemplateInstance, t *templates.Template, kept map[string]string) (*render.Output, error) {
	readable := map[string]bool{}
	values, err := inventory.ParameterValues(ti, t, func(name string) (map[string][]byte, error) {
		data, err := s.secretData(ctx, ti, name, false)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, fail("ParametersSecret", "Secret %s/%s of parametersFrom: %s", ti.Namespace, name, statusMessage(err))
			}
			return nil, err
		}
		readable[name] = s.mayRead(ctx, ti.Namespace, name)
		if !readable[name] {
			for _, v := range data {
				r.hidden = append(r.hidden, string(v))
			}
		}
		return data, nil
	})
	for _, p := range t.Parameters {
		if p.Secret {
			r.hidden = append(r.hidden, values[p.Name], p.Value)
		}
	}
	if err != nil {
		return nil, err
	}
	names := inventory.GeneratedParameters(t, values)
	if len(names) > 0 {
		secret := GeneratedSecretName(ti.Name)
		data, err := s.secretData(ctx, ti, secret, true)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
			return nil, err
		}
		shown := err == nil && s.mayRead(ctx, ti.Namespace, secret)
		for n := range names {
			if v, ok := data[n]; ok {
				values[n] = string(v)
			} else if v, ok := kept[n]; ok {
				values[n], shown, r.fresh = v, false, true
			} else {
				shown, r.fresh = false, true
			}
		}
		defer func() {
			for n := range names {
				if !shown {
					r.hidden = append(r.hidden, values[n], r.generated[n])
				}
			}
		}()
	}
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	if errs := process.CheckValues(t, dialect, process.Request{Parameters: values}); len(errs) > 0 {
		return nil, apierrors.NewInvalid(templates.Kind("TemplateInstance"), ti.Name, errs)
	}
	out, err := s.c.cfg.Renderer.RenderObjects(ctx, render.Input{Template: t, Stored: true,
		Request: process.Request{Parameters: values, Labels: ti.Spec.Labels}, Properties: ti.Spec.Properties})
	if err != nil {
		return nil, err
	}
	rendered := &rendered{}
	for _, p := range out.Parameters {
		if p.Secret && p.Value != "" {
			r.hidden = append(r.hidden, p.Value)
		}
		if names[p.Name] {
			if r.generated == nil {
				r.generated = map[string]string{}
			}
			r.generated[p.Name] = p.Value
		}
	}
	rendered.generated = r.generated
	for i, item := range out.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(item); err != nil {
			return nil, fail("ProcessingFailed", "object %d of the processed template: %v", i, err)
		}
		rendered.objects = append(rendered.objects, obj)
	}
	r.plan, err = s.c.plan(ti, rendered)
	return out, err
}

// breaks says a rendering failed on the instance's values alone: every problem is of a
// parameter or of a rule over the parameters.
func breaks(err error) bool {
	status, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsInvalid(err) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return false
	}
	for _, c := range status.Status().Details.Causes {
		if !strings.HasPrefix(c.Field, "parameters") && !strings.HasPrefix(c.Field, "rules") {
			return false
		}
	}
	return true
}

// authorsOf are the authors of the Templates imported.
func authorsOf(imported []*templates.Template) []author {
	out := make([]author, 0, len(imported))
	for _, t := range imported {
		out = append(out, authorOf(t))
	}
	return out
}

// dedupe drops repeated objects, keeping the first.
func dedupe(objects []templatesv1.TemplateInstanceObject) []templatesv1.TemplateInstanceObject {
	seen := map[string]bool{}
	out := objects[:0]
	for _, o := range objects {
		if key := inventory.ObjectKey(o); !seen[key] {
			seen[key] = true
			out = append(out, o)
		}
	}
	return out
}

// removedObjects are the objects of the inventory that the candidate drops and the changes do
// not name yet.
func removedObjects(inventoried []templatesv1.TemplateInstanceObject, named []templates.ObjectChange, keep map[string]bool) []templates.ObjectChange {
	seen := map[string]bool{}
	for _, o := range named {
		seen[inventory.ObjectKey(templatesv1.TemplateInstanceObject{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})] = true
	}
	var out []templates.ObjectChange
	for _, o := range inventoried {
		key := inventory.ObjectKey(o)
		if keep[key] || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, templates.ObjectChange{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Change: "Removed"})
	}
	return out
}
