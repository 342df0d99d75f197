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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// release leaves an object in place, no longer the instance's: it removes the instance's
// member label and its field manager's ownership, on the condition that the object is as read.
// It reports whether the object is released (or not the instance's, or gone).
func (c *Controller) release(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, p *planned) (bool, error) {
	live, err := a.Get(ctx, p.Object())
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		if instance.IsRefusal(err) {
			return false, instance.Fail("ReleaseFailed", "%s: %s", p, instance.StatusMessage(err))
		}
		return false, err
	}
	if live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID(ti.Namespace, ti.Name) || (p.Ref.UID != "" && live.GetUID() != p.Ref.UID) {
		return true, nil
	}
	patch, err := releasePatch(live)
	if err != nil {
		return false, err
	}
	_, err = a.Patch(ctx, p.Object(), types.JSONPatchType, patch, false)
	switch {
	case err == nil || apierrors.IsNotFound(err):
		return true, nil
	case apierrors.IsConflict(err) || apierrors.IsInvalid(err):
		// Changed since read (the resourceVersion test failed): the next pass reads it again.
		return false, nil
	case instance.IsRefusal(err):
		return false, instance.Fail("ReleaseFailed", "%s: %s", p, instance.StatusMessage(err))
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
