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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// objectLifecycle is what becomes of a rendered object when the instance is deleted or stops
// rendering it: retain when the template annotates it so, or when an adoption with
// retainUntilUpgrade took it over and the instance runs still what it adopted at (the same
// generation of its spec, the same revision); "" (deleted) otherwise. An annotation that is
// neither retain nor delete (a parameter substituted into it) refuses the object.
func objectLifecycle(ti *templatesv1.TemplateInstance, obj *unstructured.Unstructured, revision int64) (string, error) {
	switch v, set := obj.GetAnnotations()[templatesv1.AnnotationLifecycle]; {
	case v == templatesv1.LifecycleRetain:
		return templatesv1.LifecycleRetain, nil
	case set && v != templatesv1.LifecycleDelete:
		return "", fmt.Errorf("annotation %s is %q: it must be %s or %s", templatesv1.AnnotationLifecycle, v, templatesv1.LifecycleDelete, templatesv1.LifecycleRetain)
	}
	a, done := ti.Spec.Adoption, ti.Status.Adoption
	if a == nil || !a.RetainUntilUpgrade || done == nil || done.Phase != templatesv1.AdoptionAdopted ||
		done.Generation != ti.Generation || done.Revision != revision {
		return "", nil
	}
	gvk := obj.GroupVersionKind()
	for _, o := range done.Objects {
		if o.Action == templatesv1.AdoptionAdopt && o.Kind == gvk.Kind && o.Name == obj.GetName() && o.Namespace == obj.GetNamespace() {
			return templatesv1.LifecycleRetain, nil
		}
	}
	return "", nil
}

// release leaves an object in place, no longer the instance's: it removes the instance's
// member label and its field manager's ownership, on the condition that the object is as read.
// It reports whether the object is released (or not the instance's, or gone).
func (c *Controller) release(ctx context.Context, ti *templatesv1.TemplateInstance, a Applier, p *planned) (bool, error) {
	live, err := a.Get(ctx, p.object())
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		if isRefusal(err) {
			return false, fail("ReleaseFailed", "%s: %s", p, statusMessage(err))
		}
		return false, err
	}
	if live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID(ti.Namespace, ti.Name) || (p.ref.UID != "" && live.GetUID() != p.ref.UID) {
		return true, nil
	}
	patch, err := releasePatch(live)
	if err != nil {
		return false, err
	}
	_, err = a.Patch(ctx, p.object(), types.JSONPatchType, patch, false)
	switch {
	case err == nil || apierrors.IsNotFound(err):
		return true, nil
	case apierrors.IsConflict(err) || apierrors.IsInvalid(err):
		// Changed since read (the resourceVersion test failed): the next pass reads it again.
		return false, nil
	case isRefusal(err):
		return false, fail("ReleaseFailed", "%s: %s", p, statusMessage(err))
	}
	return false, err
}

// releasePatch removes the member label and the instance's managed fields from live, if live
// still has the resourceVersion read. With no other manager left the managed fields are
// cleared as the API documents it, with one empty entry.
func releasePatch(live *unstructured.Unstructured) ([]byte, error) {
	var kept []metav1.ManagedFieldsEntry
	for _, e := range live.GetManagedFields() {
		if e.Manager != inventory.FieldManager {
			kept = append(kept, e)
		}
	}
	var managed any = kept
	if len(kept) == 0 {
		managed = []map[string]any{{}}
	}
	var ops []map[string]any
	if rv := live.GetResourceVersion(); rv != "" {
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/resourceVersion", "value": rv})
	}
	return json.Marshal(append(ops,
		map[string]any{"op": "remove", "path": "/metadata/labels/" + jsonPointerEscape(inventory.PartOfLabel)},
		map[string]any{"op": "add", "path": "/metadata/managedFields", "value": managed}))
}

func jsonPointerEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// ObjectReleased is the change of a preview for an object the candidate no longer renders
// whose lifecycle is retain: it stays, no longer the instance's, and is no prune.
const ObjectReleased = "Released"

// releaseRetained marks the removed objects of a preview that are retained, in the inventory
// or in what the instance runs now, as released.
func releaseRetained(changes []templates.ObjectChange, inventoried []templatesv1.TemplateInstanceObject) []templates.ObjectChange {
	retained := map[string]bool{}
	for _, o := range inventoried {
		if o.Lifecycle == templatesv1.LifecycleRetain {
			retained[inventory.ObjectKey(o)] = true
		}
	}
	for i, c := range changes {
		if c.Change == "Removed" && retained[inventory.ObjectKey(templatesv1.TemplateInstanceObject{APIVersion: c.APIVersion, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name})] {
			changes[i].Change = ObjectReleased
		}
	}
	return changes
}
