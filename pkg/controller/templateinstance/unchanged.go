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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// A pass that would apply exactly what the last one applied, to objects nobody changed since,
// applies nothing (a thousand instances moved to a revision that renders the same cost no
// apply). It still renders (the hash is of the rendered objects), still asks the
// authorization rule for the requester and every author (a right taken away, or a new author,
// refuses it as before), and still reads every object as the requester. It applies as before
// when any of these differ from what the last apply left:
//
//   - the rendered objects' hash and status.templateRevision.appliedHash;
//   - the objects, in order, and status.objects (nothing to prune, nothing new);
//   - each object's uid and resourceVersion as read and as the last apply recorded: an object
//     deleted, or changed by anyone (kubectl edit, another manager, a controller writing its
//     status), is applied again, so the drift a pass corrects is still corrected;
//   - the generated values: every one read from the kept Secret, no rotation asked for.
//
// It is not dry-run again: admission answered the apply that made the objects as they are.

// unchanged says whether the pass would change nothing; when it would not, it returns the
// inventory with each object's readiness as read.
func (c *Controller) unchanged(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, r *instance.Rendered, plan []*planned,
	prune []target) ([]templatesv1.TemplateInstanceObject, bool, error) {
	applied := ti.Status.TemplateRevision
	if applied == nil || applied.AppliedHash == "" || applied.AppliedHash != r.Hash || r.Revision == 0 || len(prune) > 0 ||
		r.FreshGenerated || r.UnreadGenerated != nil || ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters] != "" {
		return nil, false, nil
	}
	var objects []*planned
	for _, p := range plan {
		if !p.Generated {
			objects = append(objects, p)
		}
	}
	if len(objects) != len(ti.Status.Objects) {
		return nil, false, nil
	}
	id := inventory.ApplySetID(ti.Namespace, ti.Name)
	out := make([]templatesv1.TemplateInstanceObject, len(objects))
	for i, p := range objects {
		was := ti.Status.Objects[i]
		if inventory.ObjectKey(was) != inventory.ObjectKey(p.Ref) || was.UID == "" || was.ResourceVersion == "" {
			return nil, false, nil
		}
		live, err := a.Get(ctx, p.Object())
		switch {
		case err != nil && (apierrors.IsNotFound(err) || instance.IsRefusal(err)):
			// Gone, or not readable: the full pass applies it again, or says why it cannot.
			return nil, false, nil
		case err != nil:
			return nil, false, err
		}
		if live.GetLabels()[inventory.PartOfLabel] != id || live.GetUID() != was.UID || live.GetResourceVersion() != was.ResourceVersion ||
			live.GetDeletionTimestamp() != nil {
			return nil, false, nil
		}
		out[i] = was
		out[i].Ready, _ = inventory.Ready(live)
	}
	return out, true, nil
}

// recordUnchanged writes what a pass that changed nothing found: the revision it runs now
// (with the same applied hash), the objects' readiness, the generation observed.
func (c *Controller) recordUnchanged(ctx context.Context, ti *templatesv1.TemplateInstance, r *instance.Rendered,
	objects []templatesv1.TemplateInstanceObject) (time.Duration, error) {
	ti.Status.Objects = objects
	ti.Status.TemplateResourceVersion = r.TemplateResourceVersion
	ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: r.Revision, AppliedHash: r.Hash, Generation: ti.Generation}
	setRevisionReconciled(ti, r.Current)
	ti.Status.ObservedGeneration = ti.Generation
	setReadiness(ti)
	ti, err := c.writeStatus(ctx, ti)
	if err != nil {
		return 0, err
	}
	return pollUnlessDone(ti), nil
}
