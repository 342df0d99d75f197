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
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/authz"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// A published instance (spec.delivery.type ExternalArtifact) follows every rule of an applied
// one up to the apply: the same render as the requester, revisions and rollouts, the
// authorization rule for the requester and every author on every object (and on what Flux
// would prune). Then, instead of applying, it packs the render into an artifact and names it
// in an ExternalArtifact, which Flux's kustomize-controller applies; the instance is Ready when
// every Kustomization of its namespace that applies the ExternalArtifact reports its digest
// applied and Ready. Secrets never reach the artifact: a render with one is refused, or, with
// secrets: Apply, its Secrets (and the generated-values Secret) are applied by the controller
// as for an applied instance, and status.objects lists them.

// Publishing is what a controller needs to publish renders.
type Publishing struct {
	// Publisher writes artifacts and ExternalArtifacts.
	Publisher *publish.Publisher
	// Clients return the client that acts as a requester in the target cluster.
	Clients func(r *templatesv1.TemplateInstanceRequester) (publish.Client, error)
	// Limits bound an artifact; zero fields take artifact.DefaultLimits'.
	Limits artifact.Limits
}

// noConsumerPoll is how soon an instance whose artifact nothing applies looks again.
const noConsumerPoll = 30 * time.Second

// publishPass is the pass of a published instance: rendered and planned as any, then
// published instead of applied.
func (c *Controller) publishPass(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier) (time.Duration, error) {
	r, err := c.pass.Render(ctx, ti, a)
	if err == nil {
		var plan []*planned
		if plan, err = c.pass.Plan(ti, r); err == nil {
			return c.reconcilePublished(ctx, ti, a, r, plan)
		}
	}
	return 0, c.failed(ctx, ti, r.Scrub(err))
}

// reconcilePublished is the pass of a published instance from its plan on.
func (c *Controller) reconcilePublished(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, r *instance.Rendered, plan []*planned) (time.Duration, error) {
	pub := c.cfg.Publishing
	if pub == nil {
		return 0, c.failed(ctx, ti, r.Scrub(instance.Fail("NotPublishing", "this server serves no artifacts: its administrator starts it with --artifact-port and --artifact-url")))
	}
	client, err := pub.Clients(ti.Spec.Requester)
	if err != nil {
		return 0, err
	}
	for _, p := range plan {
		for _, own := range publishedMembers(ti) {
			if inventory.ObjectKey(own) == inventory.ObjectKey(p.Ref) {
				return 0, c.failed(ctx, ti, r.Scrub(instance.Fail("InvalidObjects", "%s: the instance publishes through an object of that name: rename it", p)))
			}
		}
	}
	// Secrets are applied by the controller or refused; no secret value goes into the artifact.
	managed, published, err := publish.Split(plan, ti.Spec.PublishesSecrets(), r.Secrets.Holds)
	if err != nil {
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}
	packed, refs, err := publish.Artifact(published, pub.limits())
	if err != nil {
		if artifact.IsLimitError(err) {
			_ = publish.MarkFailed(ctx, client, ti, err.Error())
			return 0, c.failed(ctx, ti, r.Scrub(instance.Fail("ArtifactTooLarge", "nothing was published: %v", err)))
		}
		return 0, c.failed(ctx, ti, r.Scrub(instance.Fail("ProcessingFailed", "%v", err)))
	}
	prev, err := publish.ReadStorage(ctx, client, ti.Namespace, ti.Name)
	if err != nil {
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}

	// What the controller applies (Secrets, generated values) and prunes, and what Flux will
	// prune: the rule asks for all of it, for the requester and every author.
	keep := map[string]bool{}
	for _, p := range managed {
		if !p.Generated {
			keep[inventory.ObjectKey(p.Ref)] = true
		}
	}
	prune := append(c.pass.PruneTargets(ti.Status.Objects, keep), c.pass.PruneTargets(publish.Removed(prev, refs), nil)...)
	if err := c.pass.Authorize(ctx, ti, a, plan, r.Authors, prune); err != nil {
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}
	if err := c.authorizeDelivery(ctx, ti, a); err != nil {
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}

	owned, pruning, err := c.applyManaged(ctx, ti, a, r, managed, c.pass.PruneTargets(ti.Status.Objects, keep), keep)
	if err != nil {
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}
	outcome, err := pub.Publisher.Publish(ctx, client, ti, prev, packed, publish.RevisionName(r.Revision, ti.Generation), refs)
	if err != nil {
		var missing *publish.MissingKindError
		if errors.As(err, &missing) {
			return 0, c.failed(ctx, ti, r.Scrub(instance.Fail("NoExternalArtifacts", "%v", err)))
		}
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}

	ti.Status.Objects = owned
	ti.Status.Artifact = &outcome.Artifact
	ti.Status.TemplateResourceVersion = r.TemplateResourceVersion
	ti.Status.TemplateRevision = nil
	if r.Revision > 0 {
		ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: r.Revision, AppliedHash: r.Hash, Generation: ti.Generation}
	}
	if r.Generated != nil {
		ti.Status.GeneratedParametersSecret = GeneratedSecretName(ti.Name)
	}
	setRevisionReconciled(ti, r.Current)
	ti.Status.ObservedGeneration = ti.Generation
	applied, err := publish.AppliedBy(ctx, client, ti, outcome.Artifact.Digest)
	if err != nil {
		return 0, c.failed(ctx, ti, r.Scrub(err))
	}
	setPublishedReadiness(ti, applied, pruning)
	rotated := ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters] != ""
	if ti, err = c.writeStatus(ctx, ti); err != nil {
		return 0, err
	}
	if rotated {
		delete(ti.Annotations, templatesv1.AnnotationRotateGeneratedParameters)
		if _, err := c.cfg.Instances.TemplatesV1alpha1().TemplateInstances(ti.Namespace).Update(ctx, ti, metav1.UpdateOptions{}); err != nil {
			return 0, err
		}
	}
	return publishedPoll(ti, applied), nil
}

// limits are the bounds of the artifacts the controller publishes.
func (p *Publishing) limits() artifact.Limits {
	if p.Limits == (artifact.Limits{}) {
		return artifact.DefaultLimits
	}
	return p.Limits
}

// checkRendered refuses, right after the render and before its objects are decoded, a render of
// a published instance with more objects than an artifact holds: a template that repeats an
// object a hundred thousand times costs its rendered bytes, not a decoded tree of each.
func (pub *Publishing) checkRendered(ctx context.Context, ti *templatesv1.TemplateInstance, objects int) error {
	if !ti.Spec.Published() || pub == nil {
		return nil
	}
	max := pub.limits().MaxObjects
	if max <= 0 || objects <= max {
		return nil
	}
	err := &artifact.LimitError{What: "objects", Limit: int64(max), Got: int64(objects)}
	if client, cerr := pub.Clients(ti.Spec.Requester); cerr == nil {
		_ = publish.MarkFailed(ctx, client, ti, err.Error())
	}
	return instance.Fail("ArtifactTooLarge", "nothing was published: %v", err)
}

// applyManaged applies what the controller itself applies of a published render (its Secrets
// and generated values), as for an applied instance: nothing when it is as the last pass left
// it. It returns the inventory of what it applied, with the pruned objects not gone yet, and
// whether there are any.
func (c *Controller) applyManaged(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, r *instance.Rendered, managed []*planned,
	prune []target, keep map[string]bool) ([]templatesv1.TemplateInstanceObject, bool, error) {
	if len(managed) == 0 && len(ti.Status.Objects) == 0 {
		return nil, false, nil
	}
	live, same, err := c.unchanged(ctx, ti, a, r, managed, prune)
	if err != nil || same {
		return live, false, err
	}
	if err := c.preflight(ctx, ti, a, managed); err != nil {
		return nil, false, err
	}
	if r.UnreadGenerated != nil {
		return nil, false, r.UnreadGenerated
	}
	if err := c.apply(ctx, a, managed); err != nil {
		return nil, false, err
	}
	left, err := c.prune(ctx, ti, a, ti.Status.Objects, keep)
	if err != nil {
		return nil, false, err
	}
	var objects []templatesv1.TemplateInstanceObject
	for _, p := range managed {
		if !p.Generated {
			objects = append(objects, p.Ref)
		}
	}
	return append(objects, left...), len(left) > 0, nil
}

// authorizeDelivery checks that the requester may write what publishing writes as them (the
// artifact's ConfigMap and the ExternalArtifact with its status) and read what Flux reports,
// before anything is written.
func (c *Controller) authorizeDelivery(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier) error {
	requester := instance.RequesterInfo(ti.Spec.Requester)
	checks := []authorizer.AttributesRecord{
		{Verb: "create", Resource: "configmaps", Name: publish.StorageName(ti.Name)},
		{Verb: "patch", Resource: "configmaps", Name: publish.StorageName(ti.Name)},
		{Verb: "create", APIGroup: publish.ExternalArtifacts.Group, Resource: "externalartifacts", Name: ti.Name},
		{Verb: "patch", APIGroup: publish.ExternalArtifacts.Group, Resource: "externalartifacts", Name: ti.Name},
		{Verb: "patch", APIGroup: publish.ExternalArtifacts.Group, Resource: "externalartifacts", Subresource: "status", Name: ti.Name},
		{Verb: "list", APIGroup: publish.Kustomizations.Group, Resource: "kustomizations"},
	}
	var refused []string
	for _, attrs := range checks {
		attrs.User, attrs.Namespace, attrs.ResourceRequest = requester, ti.Namespace, true
		allowed, reason, err := c.pass.AskObject(ctx, a, attrs)
		if err != nil {
			return err
		}
		if !allowed {
			refused = append(refused, fmt.Sprintf("%s may not %s %s: %s", requester.GetName(), attrs.Verb, authz.Describe(attrs), reason))
		}
	}
	if len(refused) > 0 {
		return instance.Fail("Forbidden", "nothing was published; refused: %s", strings.Join(refused, "; "))
	}
	return nil
}

// refreshPublished looks again at what Flux reports of the published artifact and at the
// objects the controller applied, and writes what changed.
func (c *Controller) refreshPublished(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, current int64) (time.Duration, error) {
	pub := c.cfg.Publishing
	if pub == nil || ti.Status.Artifact == nil {
		return c.refreshReadiness(ctx, ti, a, current)
	}
	client, err := pub.Clients(ti.Spec.Requester)
	if err != nil {
		return 0, err
	}
	applied, err := publish.AppliedBy(ctx, client, ti, ti.Status.Artifact.Digest)
	if err != nil {
		return 0, c.failed(ctx, ti, err)
	}
	before := ti.Status.DeepCopy()
	// The artifact changed or gone behind the controller's back: the next pass stores it again.
	stored, err := publish.ReadStorage(ctx, client, ti.Namespace, ti.Name)
	if err != nil {
		return 0, c.failed(ctx, ti, err)
	}
	if stored == nil || !stored.Intact || stored.Digest != ti.Status.Artifact.Digest {
		ti.Status.ObservedGeneration = 0
	}
	if current > 0 {
		setRevisionReconciled(ti, current)
	}
	if err := c.readObjects(ctx, ti, a); err != nil {
		return 0, err
	}
	setPublishedReadiness(ti, applied, false)
	if !equalStatus(before, &ti.Status) {
		if ti, err = c.writeStatus(ctx, ti); err != nil {
			return 0, err
		}
	}
	if ti.Status.ObservedGeneration != ti.Generation {
		return time.Millisecond, nil
	}
	return publishedPoll(ti, applied), nil
}

// setPublishedReadiness writes the conditions of a published instance: Applied says what Flux
// reports; Ready is True when Flux applied the artifact and every object the controller
// applied is ready; Progressing while Flux has not applied it yet.
func setPublishedReadiness(ti *templatesv1.TemplateInstance, applied *publish.Applied, pruning bool) {
	status := metav1.ConditionFalse
	if applied.Done {
		status = metav1.ConditionTrue
	}
	set(ti, templatesv1.TemplateInstanceApplied, status, applied.Reason, applied.Message)
	var waiting []templatesv1.TemplateInstanceObject
	for _, o := range ti.Status.Objects {
		if !o.Ready {
			waiting = append(waiting, o)
		}
	}
	revision := ti.Status.Artifact.Revision
	switch {
	case pruning:
		setConditions(ti, metav1.ConditionFalse, "Pruning", "published "+revision+"; waiting for pruned objects to go", progressing(metav1.ConditionTrue))
	case applied.Reason == publish.ReasonNotYet:
		setConditions(ti, metav1.ConditionFalse, "Publishing", "published "+revision+"; "+applied.Message, progressing(metav1.ConditionTrue))
	case applied.Reason == publish.ReasonNoConsumer:
		setConditions(ti, metav1.ConditionFalse, "NoKustomization", "published "+revision+"; "+applied.Message, progressing(metav1.ConditionFalse))
	case !applied.Done:
		setConditions(ti, metav1.ConditionFalse, "KustomizationNotReady", "published "+revision+"; "+applied.Message, progressing(metav1.ConditionFalse))
	case len(waiting) > 0:
		setConditions(ti, metav1.ConditionFalse, "NotReady", revision+" "+applied.Message+"; not ready yet: "+describeObjects(waiting), progressing(metav1.ConditionFalse))
	default:
		setConditions(ti, metav1.ConditionTrue, "Ready", revision+" "+applied.Message, progressing(metav1.ConditionFalse))
	}
}

// publishedPoll is how soon a published instance is looked at again: never once Ready, slowly
// while nothing applies its artifact, every second for the first seconds after it was
// published (Flux applies a small artifact in about one), then as any instance not Ready yet.
func publishedPoll(ti *templatesv1.TemplateInstance, applied *publish.Applied) time.Duration {
	if applied.Reason == publish.ReasonNoConsumer {
		return noConsumerPoll
	}
	if p := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceProgressing); p != nil &&
		p.Reason == "Publishing" && time.Since(p.LastTransitionTime.Time) < freshPublication {
		return freshPoll
	}
	return pollUnlessDone(ti)
}

// freshPublication is how long after publishing an instance waits for Flux every freshPoll.
const (
	freshPublication = 20 * time.Second
	freshPoll        = time.Second
)

// publishedMembers are what a published instance writes besides the objects it applies: its
// ExternalArtifact and the ConfigMap that stores the artifact, deleted with it.
func publishedMembers(ti *templatesv1.TemplateInstance) []templatesv1.TemplateInstanceObject {
	return []templatesv1.TemplateInstanceObject{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: ti.Namespace, Name: publish.StorageName(ti.Name)},
		{APIVersion: publish.ExternalArtifacts.GroupVersion().String(), Kind: publish.ExternalArtifactKind, Namespace: ti.Namespace, Name: ti.Name},
	}
}
