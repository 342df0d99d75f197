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
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/redact"
	"stencil.dev/stencil/pkg/render"
)

// previewed is one rendering of an instance for a preview: the objects planned as the
// controller plans them.
type previewed struct {
	out  *render.Output
	plan []*planned
	// generated are the generated parameters' values.
	generated map[string]string
	// fresh says a generated parameter had no kept value: what is applied will differ.
	fresh bool
}

// previewInputs are what one rendering of an instance reads: the values and their sources,
// and the generated parameters.
type previewInputs struct {
	*inventory.Inputs
	template *templates.Template
	// generated are the generated parameters; kept those of them whose value the instance
	// keeps.
	generated, kept map[string]bool
}

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
		var f *failure
		switch {
		case errors.As(err, &f):
			out.Message = f.reason + ": " + f.message
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
		return classify(templates.PreviewForbidden, fail("NoRequester", "spec.requester is empty"))
	}
	requester := requesterInfo(ti.Spec.Requester)
	ctx = genericapirequest.WithNamespace(genericapirequest.WithUser(ctx, requester), ti.Namespace)
	attrs := authorizer.AttributesRecord{User: requester, Verb: "create", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Namespace: ti.Namespace, Resource: "templates", Subresource: "processed", Name: s.template.Name, ResourceRequest: true}
	if allowed, reason, err := s.c.authorize(ctx, attrs); err != nil || !allowed {
		if err != nil {
			return out, err
		}
		return classify(templates.PreviewForbidden, fail("Forbidden", "%s may not process %s: %s", requester.GetName(), describeAttrs(attrs), reason))
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
		var f *failure
		switch {
		case errors.As(err, &f):
			baseProblem, baseIn = f.message, nil
		case err != nil && !isRefusal(err):
			return out, err
		case err != nil:
			baseProblem, baseIn = statusMessage(err), nil
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
		r, err := s.render(ctx, ti, baseIn, nil, m, false)
		var f *failure
		switch {
		case err == nil:
			base = r
		case errors.As(err, &f):
			baseProblem = f.message
		case !isRefusal(err):
			return out, err
		default:
			baseProblem = statusMessage(err)
		}
	}
	var kept map[string]string
	if base != nil {
		kept = base.generated
	}
	cand, err := s.render(ctx, ti, candIn, kept, m, true)
	if err != nil {
		if breaks(err) {
			return classify(templates.PreviewBreaksParameters, err)
		}
		if f := (*failure)(nil); errors.As(err, &f) && (f.reason == "InputForbidden" || f.reason == "NoAuthor") {
			return classify(templates.PreviewForbidden, err)
		}
		return classify(templates.PreviewFailed, err)
	}
	// An instance whose generated values are not kept yet gets new ones when applied: no
	// plan can say what that applies.
	if !cand.fresh {
		out.RenderedHash = inventory.OutputHash(s.p.cfg.HashKey, cand.out.Objects)
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
			var f *failure
			if errors.As(err, &f) && f.reason == "Forbidden" {
				out.Objects, out.RenderedHash = nil, ""
				return classify(templates.PreviewForbidden, err)
			}
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

// inputs reads what rendering t for the instance reads, as the controller would: its
// parametersFrom sources and the values it keeps of t's generated parameters.
func (s *previewState) inputs(ctx context.Context, ti *templatesv1.TemplateInstance, t *templates.Template) (*previewInputs, error) {
	in, err := inventory.ReadInputs(ti, t, func(src inventory.Source) (map[string][]byte, error) {
		data, err := s.sourceData(ctx, ti, src, false)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
				return nil, fail("ParametersSecret", "%s %s/%s of parametersFrom: %s", src.Kind, ti.Namespace, src.Name, statusMessage(err))
			}
			return nil, err
		}
		return data, nil
	})
	if err != nil {
		return nil, err
	}
	out := &previewInputs{Inputs: in, template: t, generated: inventory.GeneratedParameters(t, in.Values), kept: map[string]bool{}}
	if len(out.generated) > 0 {
		src := inventory.Source{Kind: inventory.SecretKind, Name: GeneratedSecretName(ti.Name)}
		data, err := s.sourceData(ctx, ti, src, true)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
			return nil, err
		}
		in.Keep(src, data, out.generated, nil)
		for n := range out.generated {
			if _, ok := data[n]; ok {
				out.kept[n] = true
			}
		}
	}
	return out, nil
}

// render renders the inputs' template for the instance with its values, as the controller
// would, and plans the objects; the secret values it meets are added to m. Generated
// parameters take the values the instance keeps, else those in kept (the baseline's, so that
// both sides of the comparison share them), else new ones. admit asks the rule of what the
// instance reads of the candidate's authors, as a pass would.
func (s *previewState) render(ctx context.Context, ti *templatesv1.TemplateInstance, in *previewInputs, kept map[string]string, m *masker, admit bool) (*previewed, error) {
	r := &previewed{}
	values := in.Values
	for n := range in.generated {
		if in.kept[n] {
			continue
		}
		if v, ok := kept[n]; ok {
			values[n] = v
		}
		r.fresh = true
	}
	t := in.template
	for i := range t.Parameters {
		if p := &t.Parameters[i]; redact.Hidden(p, values[p.Name], in.FromSecret[p.Name]) {
			m.set.Add(values[p.Name])
		}
	}
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	request := process.Request{Parameters: values, FromSecret: in.FromSecret, Labels: ti.Spec.Labels}
	if errs := process.CheckValues(t, dialect, request); len(errs) > 0 {
		return nil, apierrors.NewInvalid(templates.Kind("TemplateInstance"), ti.Name, errs)
	}
	input := render.Input{Template: t, Stored: true, Request: request, Properties: ti.Spec.Properties}
	if admit {
		input.Admit = func(imported []*templates.Template) error {
			return s.c.authorizeInputs(ctx, ti, append([]author{s.author}, authorsOf(imported)...), in.Read)
		}
	}
	out, err := s.c.cfg.Renderer.RenderObjects(ctx, input)
	if err != nil {
		return nil, err
	}
	r.out = out
	rendered := &rendered{fromSecrets: &redact.Set{}}
	declared := map[string]*templates.Parameter{}
	for i := range t.Parameters {
		declared[t.Parameters[i].Name] = &t.Parameters[i]
	}
	for i := range out.Parameters {
		p := &out.Parameters[i]
		if d := declared[p.Name]; d != nil && redact.Hidden(d, p.Value, in.FromSecret[p.Name]) {
			m.set.Add(p.Value)
		}
		if in.FromSecret[p.Name] {
			rendered.fromSecrets.Add(p.Value)
		}
		if in.generated[p.Name] {
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
	return r, err
}

// callerReads requires the caller to be allowed to get every source the renderings read (the
// instance itself the caller may list: mayList). Otherwise the instance is Forbidden, and the
// answer holds nothing rendered from its inputs: no classification of what would change, no
// object, no hash.
func (s *previewState) callerReads(ctx context.Context, ti *templatesv1.TemplateInstance, inputs ...*previewInputs) error {
	var refused []string
	seen := map[inventory.Source]bool{}
	for _, in := range inputs {
		if in == nil {
			continue
		}
		for _, src := range in.Read {
			if seen[src] {
				continue
			}
			seen[src] = true
			allowed, _, err := s.c.authorize(ctx, authorizer.AttributesRecord{User: s.caller, Verb: "get", APIVersion: "v1",
				Resource: src.Resource(), Namespace: ti.Namespace, Name: src.Name, ResourceRequest: true})
			if err != nil {
				return err
			}
			if !allowed {
				refused = append(refused, src.Kind+" "+ti.Namespace+"/"+src.Name)
			}
		}
	}
	if len(refused) > 0 {
		return fail("Forbidden", "%s may not get %s, which the instance reads its values from: a preview shows nothing of an "+
			"instance whose inputs its caller may not read", s.caller.GetName(), strings.Join(refused, ", "))
	}
	return nil
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
