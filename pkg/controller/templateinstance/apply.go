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
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// preflight checks every object as the requester before any is applied, after the
// authorization rule (authorizePlan: a SubjectAccessReview for create and patch, server-side
// apply being a patch that may create, of each object and for delete of each object the pass
// would prune, for the requester and every template author): for an object that exists, that
// it is this instance's, then a server-side dry-run apply, which also runs admission and
// validation. It reports every refused object and why.
func (c *Controller) preflight(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, plan []*planned) error {
	var refused []string
	id := inventory.ApplySetID(ti.Namespace, ti.Name)
	for _, p := range plan {
		// No adoption: an object that exists without this instance's label is someone else's
		// (another instance's, or made by hand), and the instance would later delete it.
		live, err := a.Get(ctx, p.Object())
		switch {
		case err == nil && live.GetLabels()[inventory.PartOfLabel] != id:
			owner := "it was not created by this instance"
			if other := live.GetLabels()[inventory.PartOfLabel]; other != "" {
				owner = "it belongs to another apply set (" + other + ")"
			}
			refused = append(refused, fmt.Sprintf("%s: exists and %s", p, owner))
			continue
		case err != nil && !apierrors.IsNotFound(err):
			if !instance.IsRefusal(err) {
				return err
			}
			refused = append(refused, fmt.Sprintf("%s: %s", p, instance.StatusMessage(err)))
			continue
		}
		if _, err := a.Apply(ctx, p.Object(), p.Obj, true); err != nil {
			if !instance.IsRefusal(err) {
				return err
			}
			refused = append(refused, fmt.Sprintf("%s: %s", p, instance.StatusMessage(err)))
		}
	}
	if len(refused) > 0 {
		return instance.Fail("DryRunFailed", "nothing was applied; refused: %s", strings.Join(refused, "; "))
	}
	return nil
}

// apply applies every object for real, in order, never forcing conflicts, and records each
// one's uid and readiness in its ref.
func (c *Controller) apply(ctx context.Context, a instance.Applier, plan []*planned) error {
	for _, p := range plan {
		applied, err := a.Apply(ctx, p.Object(), p.Obj, false)
		if err != nil {
			if instance.IsRefusal(err) {
				return instance.Fail("ApplyFailed", "%s: %s", p, instance.StatusMessage(err))
			}
			return err
		}
		p.Ref.UID, p.Ref.ResourceVersion = applied.GetUID(), applied.GetResourceVersion()
		p.Ref.Ready, _ = inventory.Ready(applied)
	}
	return nil
}

// prune deletes, in reverse order, the objects of the old inventory that the new one lacks;
// only members of the instance's set, and only the very objects it applied (a uid
// precondition): an object someone else made under the same name is never deleted. It
// returns the objects it could not delete yet, to keep in the inventory.
func (c *Controller) prune(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, old []templatesv1.TemplateInstanceObject, keep map[string]bool) ([]templatesv1.TemplateInstanceObject, error) {
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
func (c *Controller) removeMember(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, o templatesv1.TemplateInstanceObject) (bool, error) {
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
	return c.release(ctx, ti, a, &planned{Resource: mapping.Resource, Ref: o})
}

// deleteMember deletes one object of the instance's set; it reports whether the object is gone
// (or is not the instance's, so nothing is left to do).
func (c *Controller) deleteMember(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, o templatesv1.TemplateInstanceObject) (bool, error) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return true, nil
	}
	mapping, err := inventory.Mapping(c.cfg.Mapper, gv.WithKind(o.Kind))
	if err != nil {
		return true, nil // the kind is gone, and its objects with it
	}
	p := &planned{Resource: mapping.Resource, Ref: o}
	live, err := a.Get(ctx, p.Object())
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		if instance.IsRefusal(err) {
			return false, instance.Fail("DeleteFailed", "%s: %s", p, instance.StatusMessage(err))
		}
		return false, err
	}
	if live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID(ti.Namespace, ti.Name) || (o.UID != "" && live.GetUID() != o.UID) {
		return true, nil // not the object the instance applied: never deleted
	}
	if live.GetDeletionTimestamp() != nil {
		return false, nil
	}
	err = a.Delete(ctx, p.Object(), live.GetUID())
	switch {
	case apierrors.IsNotFound(err):
		return true, nil
	case err != nil && instance.IsRefusal(err):
		return false, instance.Fail("DeleteFailed", "%s: %s", p, instance.StatusMessage(err))
	case err != nil:
		return false, err
	}
	// Gone at once unless finalizers hold it; the caller looks again later.
	_, err = a.Get(ctx, p.Object())
	return apierrors.IsNotFound(err), nil
}
