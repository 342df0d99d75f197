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
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/adopt"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// reconcileAdoption is a pass of an instance that still takes its adoption's objects over.
// It plans first and touches nothing when the plan is refused. Then, with the inventory
// written first as a pass writes it, it applies the generated values, takes each object of
// the source over (its old managers' field ownership moved to Stencil's manager, then a forced
// apply, then the old tool's ownership metadata removed), applies the others as a pass does,
// leaves in place what it may leave, removes the source's records last, and records the
// adoption done. Every step holds when repeated: a pass cut short is finished by the next.
func (c *Controller) reconcileAdoption(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier) (time.Duration, error) {
	ad, err := c.planAdoption(ctx, ti, a)
	if err != nil {
		return 0, c.adoptionFailed(ctx, ti, err)
	}
	status := ad.status(templatesv1.AdoptionAdopting, false)
	if ad.result.Refused() {
		status.Phase, status.Message = templatesv1.AdoptionRefused, "nothing was touched"
		ti.Status.Adoption = status
		return 0, c.adoptionFailed(ctx, ti, instance.Fail("AdoptionRefused", "nothing was touched; %s", joinProblems(ad.problems())))
	}
	if ad.r.UnreadGenerated != nil {
		return 0, c.adoptionFailed(ctx, ti, ad.r.UnreadGenerated)
	}
	// The inventory holds the old objects and the new before anything is written.
	old := ti.Status.Objects
	known := map[string]bool{}
	for _, o := range old {
		known[inventory.ObjectKey(o)] = true
	}
	superset := append([]templatesv1.TemplateInstanceObject(nil), old...)
	for _, p := range ad.plan {
		if !p.Generated && !known[inventory.ObjectKey(p.Ref)] {
			superset = append(superset, p.Ref)
		}
	}
	ti.Status.Objects, ti.Status.Adoption = superset, status
	if ad.r.Generated != nil {
		ti.Status.GeneratedParametersSecret = GeneratedSecretName(ti.Name)
	}
	set(ti, templatesv1.TemplateInstanceAdopted, metav1.ConditionFalse, "Adopting", "taking over "+status.Source)
	setConditions(ti, metav1.ConditionFalse, "Adopting", "taking over "+status.Source, progressing(metav1.ConditionTrue))
	if ti, err = c.writeStatus(ctx, ti); err != nil {
		return 0, err
	}

	for _, p := range ad.plan {
		if err := c.applyAdopted(ctx, a, ad, p); err != nil {
			return 0, c.adoptionFailed(ctx, ti, ad.r.Scrub(err))
		}
	}
	for _, o := range ad.result.Objects {
		if o.Action == adopt.LeaveInPlace {
			if err := c.leaveInPlace(ctx, a, ad, o); err != nil {
				return 0, c.adoptionFailed(ctx, ti, ad.r.Scrub(err))
			}
		}
	}
	for _, r := range ad.source.Records {
		err := a.Delete(ctx, instance.Object{Resource: r.Resource, Namespace: r.Namespace, Name: r.Name}, r.UID)
		switch {
		case err == nil || apierrors.IsNotFound(err):
		case instance.IsRefusal(err):
			return 0, c.adoptionFailed(ctx, ti, instance.Fail("AdoptionFailed", "removing %s: %s", r, instance.StatusMessage(err)))
		default:
			return 0, err
		}
	}

	var objects []templatesv1.TemplateInstanceObject
	for _, p := range ad.plan {
		if !p.Generated {
			objects = append(objects, p.Ref)
		}
	}
	keep := map[string]bool{}
	for _, o := range objects {
		keep[inventory.ObjectKey(o)] = true
	}
	left, err := c.prune(ctx, ti, a, old, keep)
	if err != nil {
		return 0, c.adoptionFailed(ctx, ti, ad.r.Scrub(err))
	}
	ti.Status.Objects = append(objects, left...)
	ti.Status.TemplateResourceVersion = ad.r.TemplateResourceVersion
	ti.Status.TemplateRevision = nil
	if ad.r.Revision > 0 {
		ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: ad.r.Revision, AppliedHash: ad.r.Hash, Generation: ti.Generation}
	}
	setRevisionReconciled(ti, ad.r.Current)
	ti.Status.ObservedGeneration = ti.Generation
	done := ad.status(templatesv1.AdoptionAdopted, false)
	done.Generation, done.Revision = ti.Generation, ad.r.Revision
	done.Message = fmt.Sprintf("every object is the instance's; %d records of the old tool removed", len(ad.source.Records))
	ti.Status.Adoption = done
	// The objects taken over keep the lifecycle the plan gave them (retain until the first
	// upgrade, when asked).
	for i := range ti.Status.Objects {
		if o, ok := ad.byKey[inventory.ObjectKey(ti.Status.Objects[i])]; ok && o.Lifecycle == templatesv1.LifecycleRetain {
			ti.Status.Objects[i].Lifecycle = templatesv1.LifecycleRetain
		}
	}
	set(ti, templatesv1.TemplateInstanceAdopted, metav1.ConditionTrue, "Adopted", "took over "+done.Source)
	setReadiness(ti)
	if _, err := c.writeStatus(ctx, ti); err != nil {
		return 0, err
	}
	return pollUnlessDone(ti), nil
}

// applyAdopted applies one object of the plan by its action, and records its uid, version and
// readiness in its ref.
func (c *Controller) applyAdopted(ctx context.Context, a instance.Applier, ad *adoption, p *planned) error {
	var applied *unstructured.Unstructured
	var err error
	plan, ok := ad.byKey[inventory.ObjectKey(p.Ref)]
	switch {
	case p.Generated || !ok || plan.Action != adopt.Adopt:
		applied, err = a.Apply(ctx, p.Object(), p.Obj, false)
	default:
		if err := c.moveOwnership(ctx, a, p, ad.source.Take); err != nil {
			return err
		}
		if applied, err = a.ApplyForced(ctx, p.Object(), p.Obj, false); err == nil {
			applied, err = c.removeOwnershipMetadata(ctx, a, p, applied)
		}
		if err == nil {
			p.Ref.Lifecycle = plan.Lifecycle
			if p.Ref.Lifecycle == templatesv1.LifecycleDelete {
				p.Ref.Lifecycle = ""
			}
		}
	}
	if err != nil {
		if instance.IsRefusal(err) {
			return instance.Fail("AdoptionFailed", "%s: %s", p, instance.StatusMessage(err))
		}
		return err
	}
	p.Ref.UID, p.Ref.ResourceVersion = applied.GetUID(), applied.GetResourceVersion()
	p.Ref.Ready, _ = inventory.Ready(applied)
	return nil
}

// moveOwnership gives Stencil's field manager the fields the source's managers own on the
// live object, with one patch conditional on the object's resourceVersion: the forced apply
// that follows then owns everything the old tool set, and removes what the render does not.
func (c *Controller) moveOwnership(ctx context.Context, a instance.Applier, p *planned, take adopt.Managers) error {
	live, err := a.Get(ctx, p.Object())
	if err != nil {
		return err
	}
	entries, _, err := adopt.TakeOver(live.GetManagedFields(), take, inventory.FieldManager, p.Obj.GetAPIVersion(), metav1.Now())
	if err != nil {
		return instance.Fail("AdoptionFailed", "%s: %v", p, err)
	}
	if entries == nil {
		return nil
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
		{"op": "add", "path": "/metadata/managedFields", "value": entries},
	})
	if err != nil {
		return err
	}
	_, err = a.Patch(ctx, p.Object(), types.JSONPatchType, patch, false)
	return err
}

// removeOwnershipMetadata removes the old tool's labels and annotations that the forced apply
// left (another manager wrote them), so that nothing says the object is Helm's or kubectl's.
func (c *Controller) removeOwnershipMetadata(ctx context.Context, a instance.Applier, p *planned, applied *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	patch := adopt.OwnershipPatch(applied)
	if patch == nil {
		return applied, nil
	}
	return a.Patch(ctx, p.Object(), types.JSONPatchType, patch, false)
}

// leaveInPlace removes the old tool's ownership from an object of the source the template
// does not render: its ownership metadata and the ApplySet label that names a parent about
// to go.
func (c *Controller) leaveInPlace(ctx context.Context, a instance.Applier, ad *adoption, o adopt.ObjectPlan) error {
	live := ad.source.Objects[o.Ref.Key()]
	mapping, err := inventory.Mapping(c.cfg.Mapper, o.Ref.GroupVersionKind)
	if err != nil {
		return instance.Fail("AdoptionFailed", "%s: %v", o.Ref, err)
	}
	target := instance.Object{Resource: mapping.Resource, Namespace: o.Ref.Namespace, Name: o.Ref.Name}
	if live, err = a.Get(ctx, target); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	// Never the instance's (it does not render it): a member label names the source's set.
	if _, member := live.GetLabels()[adopt.ApplySetPartOfLabel]; member {
		patch, _ := json.Marshal([]map[string]any{
			{"op": "test", "path": "/metadata/resourceVersion", "value": live.GetResourceVersion()},
			{"op": "remove", "path": "/metadata/labels/" + jsonPointerEscape(adopt.ApplySetPartOfLabel)},
		})
		if live, err = a.Patch(ctx, target, types.JSONPatchType, patch, false); err != nil {
			return err
		}
	}
	if patch := adopt.OwnershipPatch(live); patch != nil {
		_, err = a.Patch(ctx, target, types.JSONPatchType, patch, false)
	}
	return err
}

// status is the adoption's status as the plan says it: in an instance's status (brief) the
// paths each object changes and removes are left out, the Adoption answer has them.
func (ad *adoption) status(phase templatesv1.AdoptionPhase, paths bool) *templatesv1.AdoptionStatus {
	s := &templatesv1.AdoptionStatus{Phase: phase, Source: ad.source.Description}
	for _, o := range ad.result.Objects {
		out := templatesv1.AdoptionObject{APIVersion: o.Ref.GroupVersion().String(), Kind: o.Ref.Kind, Namespace: o.Ref.Namespace,
			Name: o.Ref.Name, UID: o.UID, Action: templatesv1.AdoptionAction(o.Action), Lifecycle: o.Lifecycle,
			Managers: o.Managers, Immutable: o.Immutable, Problems: ad.scrub(o.Problems)}
		if paths {
			out.Changed, out.Removed = o.Changed, o.Removed
		}
		s.Objects = append(s.Objects, out)
	}
	names := make([]string, 0, len(ad.located)+len(ad.why))
	for n := range ad.located {
		names = append(names, n)
	}
	for n := range ad.why {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if l, ok := ad.located[n]; ok {
			s.GeneratedParameters = append(s.GeneratedParameters, templatesv1.AdoptedParameter{Name: n, From: l.Where})
		} else {
			s.GeneratedParameters = append(s.GeneratedParameters, templatesv1.AdoptedParameter{Name: n, Reason: ad.why[n]})
		}
	}
	for _, r := range ad.source.Records {
		s.Records = append(s.Records, r.String())
	}
	return s
}

// problems are the plan's problems, with every secret value of the render masked: a
// server's refusal may quote what it refuses.
func (ad *adoption) problems() []string { return ad.scrub(ad.result.Problems()) }

func (ad *adoption) scrub(texts []string) []string {
	if len(texts) == 0 || ad.r.Secrets == nil {
		return texts
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = ad.r.Secrets.ScrubString(t)
	}
	return out
}

// adoptionFailed writes a failure of an adopting instance: Adopted False with its reason,
// and the failure as any pass writes it.
func (c *Controller) adoptionFailed(ctx context.Context, ti *templatesv1.TemplateInstance, err error) error {
	if f, ok := err.(*failure); ok {
		set(ti, templatesv1.TemplateInstanceAdopted, metav1.ConditionFalse, f.Reason, f.Message)
	}
	return c.failed(ctx, ti, err)
}

// joinProblems lists problems in one message, at most a screenful.
func joinProblems(problems []string) string {
	const most = 20
	if len(problems) > most {
		return strings.Join(problems[:most], "; ") + fmt.Sprintf("; and %d more", len(problems)-most)
	}
	return strings.Join(problems, "; ")
}
