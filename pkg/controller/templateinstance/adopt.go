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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/adopt"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// adoption is the plan of one pass of an adopting instance: the render and its objects, what
// the source claims, the live objects, and the plan of each.
type adoption struct {
	r      *instance.Rendered
	plan   []*planned
	source *adopt.Source
	// live are the live objects of the plan's names, by inventory.ObjectKey; absent when
	// there is none.
	live   map[string]*unstructured.Unstructured
	result *adopt.Result
	// byKey are the plans of result by inventory.ObjectKey of the render's objects.
	byKey map[string]adopt.ObjectPlan
	// located are the generated values found in the live objects; why says, for the others,
	// why a new value is generated.
	located map[string]adopt.Located
	why     map[string]string
}

// adopting says the instance still has objects to take over: its adoption is not done.
func adopting(ti *templatesv1.TemplateInstance) bool {
	return ti.Spec.Adoption != nil && (ti.Status.Adoption == nil || ti.Status.Adoption.Phase != templatesv1.AdoptionAdopted)
}

// applierReader reads the cluster through an instance.Applier, as its requester.
type applierReader struct{ a instance.Applier }

func (r applierReader) Get(ctx context.Context, resource schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	return r.a.Get(ctx, instance.Object{Resource: resource, Namespace: namespace, Name: name})
}

func (r applierReader) List(ctx context.Context, resource schema.GroupVersionResource, namespace, selector string, visit func(*unstructured.Unstructured) error) error {
	return r.a.List(ctx, resource, namespace, selector, visit)
}

// planAdoption plans ti's adoption as its requester, writing nothing: it renders (with the
// values the source generated, found in the live objects), reads the source, asks the
// authorization rule, dry-runs every object and plans each. A failure of the instance is a
// *failure; a refused plan is a plan whose result says so.
func (c *Controller) planAdoption(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier) (*adoption, error) {
	var r *instance.Rendered
	ad, err := c.planAdoptionOf(ctx, ti, a, &r)
	// No message tells a value the render keeps secret: a server's refusal may quote one.
	return ad, r.Scrub(err)
}

func (c *Controller) planAdoptionOf(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, rp **instance.Rendered) (*adoption, error) {
	r, err := c.pass.Render(ctx, ti, a)
	*rp = r
	if err != nil {
		return nil, err
	}
	plan, err := c.pass.Plan(ti, r)
	if err != nil {
		return nil, err
	}
	source, err := readSource(ctx, applierReader{a}, c.cfg.Mapper, ti, renderedKinds(plan))
	switch {
	case errors.Is(err, adopt.ErrSourceGone) && ti.Status.Adoption != nil && ti.Status.Adoption.Phase == templatesv1.AdoptionAdopting:
		// A pass removed the records and was cut short before it wrote so: the objects are
		// the instance's already, and the plan says so.
		source = &adopt.Source{Description: ti.Status.Adoption.Source, Objects: map[string]*unstructured.Unstructured{}}
	case err != nil:
		if status, ok := err.(apierrors.APIStatus); ok && !instance.IsRefusal(err) {
			return nil, err
		} else if ok {
			return nil, instance.Fail("AdoptionSource", "reading what to adopt: %s", status.Status().Message)
		}
		return nil, instance.Fail("AdoptionSource", "%v", err)
	}
	ad := &adoption{r: r, plan: plan, source: source}
	if err := ad.readLive(ctx, a); err != nil {
		return nil, err
	}
	if r.FreshGenerated && len(r.Generated) > 0 {
		ad.located, ad.why = adopt.GeneratedValues(r.Generated, renderedObjects(plan), ad.liveObject)
		if len(ad.located) > 0 {
			values := map[string]string{}
			for n, l := range ad.located {
				values[n] = l.Value
			}
			ad.r, err = c.pass.RenderAdopting(ctx, ti, a, values)
			if ad.r != nil {
				// The values found are secrets too.
				ad.r.Secrets.AddSet(r.Secrets)
				*rp = ad.r
			}
			if err != nil {
				return nil, err
			}
			if ad.plan, err = c.pass.Plan(ti, ad.r); err != nil {
				return nil, err
			}
			if err := ad.readLive(ctx, a); err != nil {
				return nil, err
			}
		}
	}
	if err := c.pass.Authorize(ctx, ti, a, ad.plan, ad.r.Authors, nil); err != nil {
		return nil, err
	}
	if err := c.authorizeRecords(ctx, ti, a, source); err != nil {
		return nil, err
	}
	var candidates []adopt.Candidate
	for _, p := range ad.plan {
		if p.Generated {
			continue
		}
		cand := adopt.Candidate{Rendered: p.Obj, Live: ad.live[inventory.ObjectKey(p.Ref)]}
		switch live := cand.Live; {
		case live == nil || live.GetLabels()[inventory.PartOfLabel] == inventory.ApplySetID(ti.Namespace, ti.Name) && !ad.claims(live):
			cand.DryRun, cand.DryRunErr = a.Apply(ctx, p.Object(), p.Obj, true)
		case ad.claims(live):
			cand.DryRun, cand.DryRunErr = a.ApplyForced(ctx, p.Object(), p.Obj, true)
			if cand.DryRunErr == nil {
				if cand.Final, cand.FinalErr, err = c.dryRunTakeOver(ctx, a, p, live, cand.DryRun, source.Take); err != nil {
					return nil, err
				}
			}
		}
		if cand.DryRunErr != nil && !instance.IsRefusal(cand.DryRunErr) {
			return nil, cand.DryRunErr
		}
		candidates = append(candidates, cand)
	}
	spec := ti.Spec.Adoption
	ad.result, err = adopt.Plan(adopt.Input{SetID: inventory.ApplySetID(ti.Namespace, ti.Name), SourceSetID: source.SetID, Source: source.Objects, Candidates: candidates,
		Take: source.Take, Manager: inventory.FieldManager, RetainAll: spec.RetainUntilUpgrade, LeaveUnrendered: spec.LeaveUnrendered})
	if err != nil {
		return nil, instance.Fail("AdoptionFailed", "%v", err)
	}
	ad.byKey = map[string]adopt.ObjectPlan{}
	for _, o := range ad.result.Objects {
		ad.byKey[o.Ref.Key()] = o
	}
	return ad, nil
}

// dryRunTakeOver asks the server what a takeover ends with: the forced apply's answer
// without what the takeover removes, as a dry-run patch of the live object, which the server
// defaults and validates. It returns the answer or the server's refusal, and an error when the
// cluster failed.
func (c *Controller) dryRunTakeOver(ctx context.Context, a instance.Applier, p *planned, live, dryRun *unstructured.Unstructured, take adopt.Managers) (*unstructured.Unstructured, error, error) {
	removed, err := adopt.Removed(live.GetManagedFields(), take, dryRun.GetManagedFields(), inventory.FieldManager)
	if err != nil {
		return nil, nil, instance.Fail("AdoptionFailed", "%s: %v", p, err)
	}
	patch, err := adopt.FinalPatch(live, adopt.Desired(dryRun, p.Obj, removed))
	if err != nil {
		return nil, nil, err
	}
	final, err := a.Patch(ctx, p.Object(), types.JSONPatchType, patch, true)
	if err != nil && !instance.IsRefusal(err) {
		return nil, nil, err
	}
	return final, err, nil
}

// sourceReads bounds the sources read at once, by the controller's workers and the adoptions
// endpoint together: reading a Helm release inflates its record, up to
// adopt.MaxHelmReleaseBytes of JSON held while it is decoded (about twice that allocated), so
// two at once stay far under the server's memory limit whatever editors send.
var sourceReads = make(chan struct{}, 2)

// readSource reads what ti adopts, in one of the slots of sourceReads.
func readSource(ctx context.Context, r adopt.Reader, mapper meta.RESTMapper, ti *templatesv1.TemplateInstance, kinds []schema.GroupVersionKind) (*adopt.Source, error) {
	select {
	case sourceReads <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-sourceReads }()
	return adopt.ReadSource(ctx, r, mapper, ti.Namespace, ti.Spec.Adoption, kinds)
}

// readLive reads the live object of every name of the plan, as the requester.
func (ad *adoption) readLive(ctx context.Context, a instance.Applier) error {
	ad.live = map[string]*unstructured.Unstructured{}
	for _, p := range ad.plan {
		if p.Generated {
			continue
		}
		live, err := a.Get(ctx, p.Object())
		switch {
		case apierrors.IsNotFound(err):
		case err != nil && instance.IsRefusal(err):
			return instance.Fail("Forbidden", "nothing was touched: %s: %s", p, instance.StatusMessage(err))
		case err != nil:
			return err
		default:
			ad.live[inventory.ObjectKey(p.Ref)] = live
		}
	}
	return nil
}

// liveObject is the live object of a ref of the plan's names, nil when none: the source
// keeps only what names its objects (adopt.Source.Objects), never their data.
func (ad *adoption) liveObject(ref adopt.Ref) map[string]any {
	for _, p := range ad.plan {
		if p.Ref.Kind == ref.Kind && p.Ref.Name == ref.Name && (ref.Namespace == "" || p.Ref.Namespace == ref.Namespace) {
			if u := ad.live[inventory.ObjectKey(p.Ref)]; u != nil {
				return u.Object
			}
		}
	}
	return nil
}

// claims says the source claims live: the same object (uid) it read.
func (ad *adoption) claims(live *unstructured.Unstructured) bool {
	ref, err := adopt.RefOf(live.Object)
	if err != nil {
		return false
	}
	s := ad.source.Objects[ref.Key()]
	return s != nil && s.GetUID() == live.GetUID()
}

// authorizeRecords asks whether the requester may delete the source's records and patch the
// objects left in place: adoption does both as the requester, whose choice it is; no template
// shaped them.
func (c *Controller) authorizeRecords(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, source *adopt.Source) error {
	requester := instance.RequesterInfo(ti.Spec.Requester)
	var refused []string
	for _, r := range source.Records {
		attrs := authorizer.AttributesRecord{User: requester, Verb: "delete", APIGroup: r.Resource.Group, APIVersion: r.Resource.Version,
			Resource: r.Resource.Resource, Namespace: r.Namespace, Name: r.Name, ResourceRequest: true}
		allowed, reason, err := c.pass.AskObject(ctx, a, attrs)
		if err != nil {
			// The authorizer did not answer: retried, never read as a refusal.
			return err
		}
		if !allowed {
			refused = append(refused, fmt.Sprintf("%s: %s may not delete it: %s", r, requester.GetName(), reason))
		}
	}
	if len(refused) > 0 {
		return instance.Fail("Forbidden", "nothing was touched: the adoption removes the old tool's records last; refused: %s", joinProblems(refused))
	}
	return nil
}

// renderedKinds are the kinds of the plan's objects, each once.
func renderedKinds(plan []*planned) []schema.GroupVersionKind {
	seen := map[schema.GroupKind]bool{}
	var out []schema.GroupVersionKind
	for _, p := range plan {
		gvk := p.Obj.GroupVersionKind()
		if !p.Generated && !seen[gvk.GroupKind()] {
			seen[gvk.GroupKind()] = true
			out = append(out, gvk)
		}
	}
	return out
}

// renderedObjects are the plan's objects of the template, decoded.
func renderedObjects(plan []*planned) []map[string]any {
	var out []map[string]any
	for _, p := range plan {
		if !p.Generated {
			out = append(out, p.Obj.Object)
		}
	}
	return out
}
