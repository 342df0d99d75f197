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
	"encoding/base64"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// planned is one object to apply, with where it goes.
type planned struct {
	obj      *unstructured.Unstructured
	resource schema.GroupVersionResource
	ref      templatesv1.TemplateInstanceObject
	// generated marks the instance's own Secret of generated values.
	generated bool
}

// object names where the planned object goes.
func (p *planned) object() Object {
	return Object{Resource: p.resource, Namespace: p.ref.Namespace, Name: p.ref.Name}
}

func (p *planned) String() string { return inventory.DescribeObject(p.ref) }

// plan maps every object to its resource, puts namespaced objects without a namespace in the
// instance's, and labels each a member of the instance's set; no object may be named after a
// value read from a Secret. The generated-values Secret, if
// any, comes first: its values must be stored before anything uses them.
func (c *Controller) plan(ti *templatesv1.TemplateInstance, r *rendered) ([]*planned, error) {
	id := inventory.ApplySetID(ti.Namespace, ti.Name)
	objects := r.objects
	if len(r.generated) > 0 {
		objects = append([]*unstructured.Unstructured{generatedSecret(ti, r.generated)}, objects...)
	}
	var refused []string
	seen := map[string]bool{}
	out := make([]*planned, 0, len(objects))
	for i, obj := range objects {
		gvk := obj.GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" || obj.GetName() == "" {
			refused = append(refused, fmt.Sprintf("object %d: apiVersion, kind and metadata.name are required", i))
			continue
		}
		mapping, err := inventory.Mapping(c.cfg.Mapper, gvk)
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s %s: the cluster serves no such kind: %v", gvk.Kind, obj.GetName(), err))
			continue
		}
		inventory.Place(obj, mapping, ti.Namespace)
		if r.fromSecrets.Holds(obj.GetName()) || r.fromSecrets.Holds(obj.GetNamespace()) {
			// Names are read by everyone who may list, and the instance's status lists them.
			refused = append(refused, fmt.Sprintf("object %d (%s): its name or namespace holds a value read from a Secret, "+
				"which would show it to everyone who may list %s or read the instance", i, gvk.Kind, mapping.Resource.Resource))
			continue
		}
		inventory.Label(obj, id)
		p := &planned{obj: obj, resource: mapping.Resource, generated: len(r.generated) > 0 && i == 0,
			ref: templatesv1.TemplateInstanceObject{APIVersion: obj.GetAPIVersion(), Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}}
		if !p.generated {
			lifecycle, err := objectLifecycle(ti, obj, r.revision)
			if err != nil {
				refused = append(refused, p.String()+": "+err.Error())
				continue
			}
			p.ref.Lifecycle = lifecycle
		}
		if key := inventory.ObjectKey(p.ref); seen[key] {
			refused = append(refused, p.String()+": rendered twice")
			continue
		} else {
			seen[key] = true
		}
		out = append(out, p)
	}
	if len(refused) > 0 {
		return nil, fail("InvalidObjects", "%s", strings.Join(refused, "; "))
	}
	return out, nil
}

// generatedSecret is the Secret of an instance's generated values, owned by the instance.
func generatedSecret(ti *templatesv1.TemplateInstance, values map[string]string) *unstructured.Unstructured {
	data := map[string]interface{}{}
	for k, v := range values {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	s := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": data,
		"metadata": map[string]interface{}{"name": GeneratedSecretName(ti.Name), "namespace": ti.Namespace},
	}}
	s.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: templatesv1.SchemeGroupVersion.String(), Kind: "TemplateInstance", Name: ti.Name, UID: ti.UID}})
	s.SetLabels(map[string]string{inventory.GeneratedValuesLabel: "true"})
	return s
}

// preflight checks every object as the requester before any is applied, after the
// authorization rule (authorizePlan: a SubjectAccessReview for create and patch, server-side
// apply being a patch that may create, of each object and for delete of each object the pass
// would prune, for the requester and every template author): for an object that exists, that
// it is this instance's, then a server-side dry-run apply, which also runs admission and
// validation. It reports every refused object and why.
func (c *Controller) preflight(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, plan []*planned) error {
	var refused []string
	id := inventory.ApplySetID(ti.Namespace, ti.Name)
	for _, p := range plan {
		// No adoption: an object that exists without this instance's label is someone else's
		// (another instance's, or made by hand), and the instance would later delete it.
		live, err := a.Get(ctx, p.object())
		switch {
		case err == nil && live.GetLabels()[inventory.PartOfLabel] != id:
			owner := "it was not created by this instance"
			if other := live.GetLabels()[inventory.PartOfLabel]; other != "" {
				owner = "it belongs to another apply set (" + other + ")"
			}
			refused = append(refused, fmt.Sprintf("%s: exists and %s", p, owner))
			continue
		case err != nil && !apierrors.IsNotFound(err):
			if !isRefusal(err) {
				return err
			}
			refused = append(refused, fmt.Sprintf("%s: %s", p, statusMessage(err)))
			continue
		}
		if _, err := a.Apply(ctx, p.object(), p.obj, true); err != nil {
			if !isRefusal(err) {
				return err
			}
			refused = append(refused, fmt.Sprintf("%s: %s", p, statusMessage(err)))
		}
	}
	if len(refused) > 0 {
		return fail("DryRunFailed", "nothing was applied; refused: %s", strings.Join(refused, "; "))
	}
	return nil
}

// authorizePlan is the authorization rule: a SubjectAccessReview for the requester, for
// create and patch of every object of the plan (the generated-values Secret too) and delete of
// every object pruned, then the same for every author; a preview asks it as the controller
// would.
func (c *Controller) authorizePlan(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, plan []*planned, authors []author, prune []target) error {
	requester := requesterInfo(ti.Spec.Requester)
	targets := make([]target, 0, len(plan)+len(prune))
	for _, p := range plan {
		targets = append(targets, target{resource: p.resource, ref: p.ref, verbs: []string{"create", "patch"}})
	}
	var refused []string
	for _, t := range append(targets, prune...) {
		for _, verb := range t.verbs {
			attrs := authorizer.AttributesRecord{User: requester, Verb: verb, APIGroup: t.resource.Group, APIVersion: t.resource.Version,
				Resource: t.resource.Resource, Namespace: t.ref.Namespace, Name: t.ref.Name, ResourceRequest: true}
			allowed, reason, err := c.authorizeObject(ctx, a, attrs)
			if err != nil {
				return err
			}
			if !allowed {
				refused = append(refused, fmt.Sprintf("%s: %s may not %s it: %s", inventory.DescribeObject(t.ref), requester.GetName(), verb, reason))
				break
			}
		}
	}
	if len(refused) > 0 {
		return fail("Forbidden", "nothing was applied; refused: %s", strings.Join(refused, "; "))
	}
	return c.authorizeAuthors(ctx, ti, authors, append(writeTargets(plan), prune...))
}

// isRefusal tells a refusal of the object (the user's to fix) from a failure of the cluster
// (retried as it is).
func isRefusal(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsInvalid(err) || apierrors.IsConflict(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsUnauthorized(err)
}

// apply applies every object for real, in order, never forcing conflicts, and records each
// one's uid and readiness in its ref.
func (c *Controller) apply(ctx context.Context, a Applier, plan []*planned) error {
	for _, p := range plan {
		applied, err := a.Apply(ctx, p.object(), p.obj, false)
		if err != nil {
			if isRefusal(err) {
				return fail("ApplyFailed", "%s: %s", p, statusMessage(err))
			}
			return err
		}
		p.ref.UID, p.ref.ResourceVersion = applied.GetUID(), applied.GetResourceVersion()
		p.ref.Ready, _ = inventory.Ready(applied)
	}
	return nil
}

// prune deletes, in reverse order, the objects of the old inventory that the new one lacks;
// only members of the instance's set, and only the very objects it applied (a uid
// precondition): an object someone else made under the same name is never deleted. It
// returns the objects it could not delete yet, to keep in the inventory.
func (c *Controller) prune(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, old []templatesv1.TemplateInstanceObject, keep map[string]bool) ([]templatesv1.TemplateInstanceObject, error) {
	var left []templatesv1.TemplateInstanceObject
	for i := len(old) - 1; i >= 0; i-- {
		o := old[i]
		if keep[inventory.ObjectKey(o)] {
			continue
		}
		gone, err := c.removeMember(ctx, ti, a, o)
		if err != nil {
			return nil, err
		}
		if !gone {
			left = append([]templatesv1.TemplateInstanceObject{o}, left...)
		}
	}
	return left, nil
}

// removeMember deletes one object of the instance's set, or, when its lifecycle is retain,
// leaves it in place no longer the instance's; it reports whether that is done.
func (c *Controller) removeMember(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, o templatesv1.TemplateInstanceObject) (bool, error) {
	if o.Lifecycle != templatesv1.LifecycleRetain {
		return c.deleteMember(ctx, ti, a, o)
	}
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return true, nil
	}
	mapping, err := inventory.Mapping(c.cfg.Mapper, gv.WithKind(o.Kind))
	if err != nil {
		return true, nil
	}
	return c.release(ctx, ti, a, &planned{resource: mapping.Resource, ref: o})
}

// deleteMember deletes one object of the instance's set; it reports whether the object is gone
// (or is not the instance's, so nothing is left to do).
func (c *Controller) deleteMember(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, o templatesv1.TemplateInstanceObject) (bool, error) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return true, nil
	}
	mapping, err := inventory.Mapping(c.cfg.Mapper, gv.WithKind(o.Kind))
	if err != nil {
		return true, nil // the kind is gone, and its objects with it
	}
	p := &planned{resource: mapping.Resource, ref: o}
	live, err := a.Get(ctx, p.object())
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		if isRefusal(err) {
			return false, fail("DeleteFailed", "%s: %s", p, statusMessage(err))
		}
		return false, err
	}
	if live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID(ti.Namespace, ti.Name) || (o.UID != "" && live.GetUID() != o.UID) {
		return true, nil // not the object the instance applied: never deleted
	}
	if live.GetDeletionTimestamp() != nil {
		return false, nil
	}
	err = a.Delete(ctx, p.object(), live.GetUID())
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil && isRefusal(err):
		return false, fail("DeleteFailed", "%s: %s", p, statusMessage(err))
	case err != nil:
		return false, err
	}
	// Gone at once unless finalizers hold it; the caller looks again later.
	_, err = a.Get(ctx, p.object())
	return apierrors.IsNotFound(err), nil
}

// authorizeObject asks whether the requester may act on an object of the target: through the
// server's authorizer (a SubjectAccessReview of the hosting cluster), or, acting as the
// target's own identity, with a SelfSubjectAccessReview there. err is an outage, never a
// refusal.
func (c *Controller) authorizeObject(ctx context.Context, a Applier, attrs authorizer.AttributesRecord) (bool, string, error) {
	if !c.cfg.SelfReview {
		return c.authorize(ctx, attrs)
	}
	allowed, reason, err := a.MayI(ctx, attrs)
	if err != nil {
		return false, "", err
	}
	if !allowed && reason == "" {
		reason = "no rule allows it"
	}
	return allowed, reason, nil
}
