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

// Package preview answers templates/{name}/preview: what a candidate content of a Template (a
// body, or a stored revision) would do to each of its instances, by doing for each what a
// pass of the TemplateInstance controller would do short of applying, with the same library
// (pkg/controller/instance): the same values read as the requester, the same Renderer, plan
// and authorization rule. It compares with what the instance runs now, or, live, with what a
// server-side dry-run apply as the requester makes of the live objects. A rollout started
// with a preview's plan hash is checked against a new preview of the same revision.
package preview

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// A preview answers, for every instance of a Template that would move to a candidate content,
// what the candidate would do to it, by doing what the controller's pass would do short of
// applying: the same values (spec, parametersFrom Secrets and kept generated values, read as
// the requester), the same Renderer, the same plan and the same authorization rule (the
// requester, and the candidate's author: the caller for a body, the revision's author for a
// revision). It compares with what the instance's current revision renders with the same
// values, or, live, with what a server-side dry-run apply as the requester would make of the
// live objects. Each instance's rendering holds processing memory of its own, released once
// the instance is classified; the answer, as it grows, is charged to the request's memory.

// InstanceLister lists the TemplateInstances of a namespace in one read.
type InstanceLister interface {
	List(ctx context.Context, namespace string) ([]*templatesv1.TemplateInstance, error)
}

// Config is what a Previewer is built from.
type Config struct {
	// Templates reads the Templates' revisions.
	Templates instance.TemplateReader
	// Instances lists the instances.
	Instances InstanceLister
	// Renderer renders as the controller does.
	Renderer instance.Renderer
	// Appliers read Secrets and dry-run as each requester; nil on a server without a cluster,
	// where no Secret is read and there is no live mode.
	Appliers instance.Appliers
	// Mapper maps kinds to resources; nil guesses them, as a server without a cluster must.
	Mapper meta.RESTMapper
	// Authorizer answers the SubjectAccessReviews of the authorization rule and of the caller.
	Authorizer authorizer.Authorizer
	// SelfReview checks requesters with SelfSubjectAccessReviews, as the controller does.
	SelfReview bool
	// Memory is the server's processing memory; nil charges nothing.
	Memory *renderrest.Budget
	// HashKey keys the rendered hashes (instance.Config.HashKey).
	HashKey []byte
	// ArtifactLimits bound the artifact of a published instance, as the controller's
	// (zero: artifact.DefaultLimits).
	ArtifactLimits artifact.Limits
}

// Previewer previews candidate contents of Templates across their instances.
type Previewer struct {
	cfg Config
}

// New returns a Previewer of cfg.
func New(cfg Config) *Previewer { return &Previewer{cfg: cfg} }

// Request is one preview.
type Request struct {
	// Template is the stored Template.
	Template *templates.Template
	// Candidate is a content to preview as the Template's, named and stamped as the Template
	// would be (its author is the caller); nil previews Revision.
	Candidate *templates.Template
	// Revision is the stored revision previewed when Candidate is nil.
	Revision int64
	// Live compares with the live objects through a server-side dry-run apply.
	Live bool
	// Caller is who asks.
	Caller user.Info
}

// PreviewTemplate previews for the caller of ctx: the API's subresource calls it.
func (p *Previewer) PreviewTemplate(ctx context.Context, stored, candidate *templates.Template, revision int64, live bool) (*templates.TemplatePreviewStatus, error) {
	caller, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewUnauthorized("a preview needs an authenticated user")
	}
	return p.Preview(ctx, Request{Template: stored, Candidate: candidate, Revision: revision, Live: live, Caller: caller})
}

// answerFactor is what an answer holds per byte of what it says while it is encoded and sent,
// as renderrest counts a processing answer.
const answerFactor = 5

// Preview answers req. A problem of the request is an API error: 403 when the caller may not
// list the namespace's instances (the answer shows them), 404 for a missing revision, 422 for
// live mode on a server without a cluster, 413 when the answer would not fit the processing
// memory, 429 or 504 when memory or time runs out.
func (p *Previewer) Preview(ctx context.Context, req Request) (*templates.TemplatePreviewStatus, error) {
	t := req.Template
	if err := p.mayList(ctx, req.Caller, t.Namespace); err != nil {
		return nil, err
	}
	if req.Live && p.cfg.Appliers == nil {
		return nil, apierrors.NewBadRequest("spec.live needs a cluster: this server has none to compare with")
	}
	s, err := p.newState(ctx, req)
	if err != nil {
		return nil, err
	}
	instances, err := p.cfg.Instances.List(ctx, t.Namespace)
	if err != nil {
		return nil, err
	}
	sort.Slice(instances, func(i, j int) bool { return instances[i].Name < instances[j].Name })
	status := &templates.TemplatePreviewStatus{Revision: s.number, CandidateHash: s.candidate.Revision.Hash, Counts: map[string]int32{}}
	// Each instance's renderings hold memory of their own, given back once it is classified.
	var rendering *renderrest.Hold
	if p.cfg.Memory != nil {
		rendering = p.cfg.Memory.NewHold()
	}
	request := renderrest.HoldFrom(ctx)
	var held int64
	for _, ti := range instances {
		if ref := ti.Spec.TemplateRef; ref == nil || ref.Name != t.Name {
			continue
		}
		if reason := skipped(ti); reason != "" {
			status.Skipped = append(status.Skipped, templates.SkippedInstance{Name: ti.Name, Reason: reason})
			held += int64(len(ti.Name) + 64)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, apierrors.NewTimeoutError(fmt.Sprintf("the preview did not finish before the request ended (%d instances classified)", len(status.Instances)), 0)
		}
		one, err := s.instance(p.holding(ctx, rendering), ti)
		if rendering != nil {
			rendering.Release()
		}
		if err != nil {
			return nil, err
		}
		status.Instances = append(status.Instances, one)
		status.Counts[string(one.Classification)]++
		held += previewSize(&one)
		if err := p.charge(ctx, request, held); err != nil {
			return nil, err
		}
	}
	status.PlanHash = planHash(status.CandidateHash, status.Instances, s.planned)
	return status, nil
}

// holding returns ctx with hold for one instance's renderings to charge, when there is one.
func (p *Previewer) holding(ctx context.Context, hold *renderrest.Hold) context.Context {
	if hold == nil {
		return ctx
	}
	return renderrest.WithHold(ctx, hold)
}

// charge makes the request hold what its answer takes so far. An answer larger than half the
// processing memory is refused, as a processing answer over --max-output-bytes is: the other
// half stays for the renderings, the preview's own included, so it never waits on itself.
func (p *Previewer) charge(ctx context.Context, request *renderrest.Hold, held int64) error {
	if p.cfg.Memory == nil {
		return nil
	}
	n, most := answerFactor*held, p.cfg.Memory.Capacity(false)/2
	if n > most {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"the preview's answer would hold more than half the server's processing memory (%d bytes of --processing-memory-bytes): "+
				"preview a Template with fewer instances or fewer changes", most))
	}
	if request == nil {
		return nil
	}
	return request.Set(ctx, n, false)
}

// skipped says why an instance would not move to a candidate: it pins a revision, or it is
// Manual and runs the revision its spec was applied with; "" when it would move.
func skipped(ti *templatesv1.TemplateInstance) string {
	if ti.Spec.TemplateRef.Revision > 0 {
		return "Pinned"
	}
	if r := ti.Status.TemplateRevision; instance.Policy(ti) == templatesv1.UpdatePolicyManual && r != nil && r.Generation == ti.Generation {
		return "Manual"
	}
	return ""
}

// mayList requires the caller to be allowed to list the namespace's TemplateInstances: the
// answer names them and shows what they render.
func (p *Previewer) mayList(ctx context.Context, caller user.Info, namespace string) error {
	attrs := authorizer.AttributesRecord{User: caller, Verb: "list", APIGroup: templates.GroupName, APIVersion: templatesv1.SchemeGroupVersion.Version,
		Resource: "templateinstances", Namespace: namespace, ResourceRequest: true}
	return authz.Require(ctx, p.cfg.Authorizer, attrs, func(reason string) error {
		return apierrors.NewForbidden(templates.Resource("templateinstances"), "",
			fmt.Errorf("a preview shows every instance of the Template: %s may not list templateinstances in %s: %s", caller.GetName(), namespace, reason))
	})
}

// planHash is the SHA-256 over the candidate's content hash and every previewed instance's
// name and the hash of what it would apply (planned, by name; none when it does not render),
// in order: it changes whenever any instance's planned output changes, also for an instance
// that keeps no generated values yet (its values are drawn from a seeded generator), and two
// candidates never share one. It says nothing of what instances run now: a rollout's own
// waves, which move instances to the candidate, do not change it.
func planHash(candidate string, instances []templates.InstancePreview, planned map[string]string) string {
	h := sha256.New()
	fmt.Fprintf(h, "candidate\x00%s\n", candidate)
	for _, i := range instances {
		fmt.Fprintf(h, "%s\x00%s\n", i.Name, planned[i.Name])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// previewSize is about what one instance's preview takes in the answer.
func previewSize(i *templates.InstancePreview) int64 {
	n := len(i.Name) + len(i.Message) + len(i.RenderedHash) + 128
	for _, c := range i.Causes {
		n += len(c.Field) + len(c.Message) + 64
	}
	for _, o := range i.Objects {
		n += len(o.APIVersion) + len(o.Kind) + len(o.Namespace) + len(o.Name) + 64
		for _, f := range o.Fields {
			n += len(f.Path) + len(f.Before) + len(f.After) + 48
		}
	}
	return int64(n)
}
