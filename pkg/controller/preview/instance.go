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

package preview

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/redact"
)

// instance previews the candidate for one instance. Every problem of the instance is its
// classification; an error is the request's (time, memory, the cluster, the authorizer).
func (s *previewState) instance(ctx context.Context, ti *templatesv1.TemplateInstance) (templates.InstancePreview, error) {
	out := templates.InstancePreview{Name: ti.Name}
	if r := ti.Status.TemplateRevision; r != nil {
		out.FromRevision = r.Number
	}
	// m hides, everywhere in the answer, the secret values of the instance as they are learnt.
	m := &masker{set: &redact.Set{}}
	classify := func(c templates.PreviewClassification, err error) (templates.InstancePreview, error) {
		out.Classification = c
		var f *instance.Failure
		switch {
		case errors.As(err, &f):
			out.Message = f.Reason + ": " + f.Message
		case err != nil:
			if _, ok := err.(apierrors.APIStatus); !ok || ctx.Err() != nil {
				return out, err
			}
			status := err.(apierrors.APIStatus).Status()
			if apierrors.IsTooManyRequests(err) || apierrors.IsTimeout(err) || authz.IsUnavailable(err) {
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
		return classify(templates.PreviewForbidden, instance.Fail("NoRequester", "spec.requester is empty"))
	}
	requester := instance.RequesterInfo(ti.Spec.Requester)
	ctx = instance.AsRequester(ctx, ti)
	attrs := authorizer.AttributesRecord{User: requester, Verb: "create", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Namespace: ti.Namespace, Resource: "templates", Subresource: "processed", Name: s.template.Name, ResourceRequest: true}
	if allowed, reason, err := s.planner.Ask(ctx, attrs); err != nil || !allowed {
		if err != nil {
			return out, err
		}
		return classify(templates.PreviewForbidden, instance.Fail("Forbidden", "%s may not process %s: %s", requester.GetName(), authz.Describe(attrs), reason))
	}

	// What each rendering reads, read as the requester before anything is rendered: the
	// caller learns nothing of an instance whose inputs the caller may not read.
	var baseIn *previewInputs
	var baseProblem string
	if !s.live {
		bt, err := s.baselineTemplate(ctx, ti)
		if err == nil {
			baseIn, err = s.inputs(ctx, ti, bt)
		}
		var f *instance.Failure
		switch {
		case errors.As(err, &f):
			baseProblem, baseIn = f.Message, nil
		case err != nil && !instance.IsRefusal(err):
			return out, err
		case err != nil:
			baseProblem, baseIn = instance.StatusMessage(err), nil
		}
	}
	candIn, err := s.inputs(ctx, ti, s.candidate)
	if err != nil {
		return classify(templates.PreviewFailed, err)
	}
	if err := s.callerReads(ctx, ti, candIn, baseIn); err != nil {
		return classify(templates.PreviewForbidden, err)
	}
	for _, in := range []*previewInputs{baseIn, candIn} {
		if in != nil {
			m.set.Add(in.Secrets...)
		}
	}

	// What the instance runs now, with its values: the baseline, unless live.
	var base *previewed
	if baseIn != nil {
		r, err := s.render(ctx, ti, baseIn, nil, m, []instance.Author{instance.AuthorOf(baseIn.template)})
		var f *instance.Failure
		switch {
		case err == nil:
			base = r
		case errors.As(err, &f):
			baseProblem = f.Message
		case !instance.IsRefusal(err):
			return out, err
		default:
			baseProblem = instance.StatusMessage(err)
		}
	}
	var kept map[string]string
	if base != nil {
		kept = base.generated
	}
	// The candidate's author, and the rollout's when the instance follows it, as in a pass.
	candAuthors := []instance.Author{s.author}
	if a, ok := instance.RolloutAuthorOf(ti, s.template); ok {
		candAuthors = append(candAuthors, a)
	}
	cand, err := s.render(ctx, ti, candIn, kept, m, candAuthors)
	if err != nil {
		if breaks(err) {
			return classify(templates.PreviewBreaksParameters, err)
		}
		if f := (*instance.Failure)(nil); errors.As(err, &f) && (f.Reason == "InputForbidden" || f.Reason == "NoAuthor") {
			return classify(templates.PreviewForbidden, err)
		}
		return classify(templates.PreviewFailed, err)
	}
	// An instance whose generated values are not kept yet gets new ones when applied: no
	// hash can say what that applies. The plan still covers it, with the seeded values.
	s.planned[ti.Name] = inventory.OutputHash(s.p.cfg.HashKey, cand.out.Objects)
	if !cand.fresh {
		out.RenderedHash = s.planned[ti.Name]
	}

	keep := map[string]bool{}
	for _, p := range cand.plan {
		keep[inventory.ObjectKey(p.Ref)] = true
	}
	var a instance.Applier
	if s.p.cfg.Appliers != nil {
		if a, err = s.p.cfg.Appliers.For(ti.Spec.Requester); err != nil {
			return out, err
		}
	}
	// What the instance has: the objects it applied, and, published, those of its artifact,
	// which Flux prunes when the candidate drops one.
	inventoried, err := s.inventoried(ctx, ti, a)
	if err != nil {
		return out, err
	}
	old := append([]templatesv1.TemplateInstanceObject(nil), inventoried...)
	if base != nil {
		for _, p := range base.plan {
			if !p.Generated {
				old = append(old, p.Ref)
			}
		}
	}
	authors := append(candAuthors, instance.AuthorsOf(cand.out.Imported)...)
	if err := s.planner.Authorize(ctx, ti, a, cand.plan, authors, s.planner.PruneTargets(dedupe(old), keep)); err != nil {
		return classify(templates.PreviewForbidden, err)
	}
	// A published instance's render goes into an artifact: one its controller would refuse to
	// publish (a Secret it may not apply, a secret value in another object) fails here alike.
	// So does one whose artifact would pass the artifact's limits.
	if ti.Spec.Published() {
		_, published, err := publish.Split(cand.plan, ti.Spec.PublishesSecrets(), m.set.Holds)
		if err != nil {
			return classify(templates.PreviewFailed, err)
		}
		if _, _, err := publish.Artifact(published, s.artifactLimits()); err != nil {
			if artifact.IsLimitError(err) {
				return classify(templates.PreviewFailed, instance.Fail("ArtifactTooLarge", "nothing was published: %v", err))
			}
			return classify(templates.PreviewFailed, instance.Fail("ProcessingFailed", "%v", err))
		}
	}

	if s.live {
		out.Objects, err = s.liveChanges(ctx, ti, a, cand.plan, m)
		if err != nil {
			var f *instance.Failure
			if errors.As(err, &f) && f.Reason == "Forbidden" {
				out.Objects, out.RenderedHash = nil, ""
				return classify(templates.PreviewForbidden, err)
			}
			return classify(templates.PreviewFailed, err)
		}
	} else {
		var before []*instance.Planned
		if base != nil {
			before = base.plan
		}
		out.Objects = changes(before, cand.plan, m)
	}
	for _, removed := range removedObjects(inventoried, out.Objects, keep) {
		out.Objects = append(out.Objects, removed)
	}
	retained := append([]templatesv1.TemplateInstanceObject(nil), ti.Status.Objects...)
	if base != nil {
		for _, p := range base.plan {
			retained = append(retained, p.Ref)
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
	number := instance.TargetRevision(ti, s.template)
	if r := ti.Status.TemplateRevision; r != nil {
		number = r.Number
	}
	if number == 0 {
		return s.template, nil
	}
	rt, err := s.revision(ctx, number)
	if apierrors.IsNotFound(err) {
		return nil, instance.Fail("RevisionNotFound", "revision %d, which the instance runs, is no longer kept", number)
	}
	return rt, err
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

// inventoried are the objects an instance has: those it applied and, for a published instance,
// those of the artifact its storage holds (read as the requester; none when it has none yet or
// may not read it, which its controller's pass refuses anyway).
func (s *previewState) inventoried(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier) ([]templatesv1.TemplateInstanceObject, error) {
	if !ti.Spec.Published() || a == nil {
		return ti.Status.Objects, nil
	}
	data, err := a.SourceData(ctx, ti.Namespace, inventory.Source{Kind: inventory.ConfigMapKind, Name: publish.StorageName(ti.Name)})
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
		return ti.Status.Objects, nil
	case err != nil:
		return nil, err
	}
	return dedupe(append(append([]templatesv1.TemplateInstanceObject(nil), ti.Status.Objects...), publish.StoredObjects(data)...)), nil
}
