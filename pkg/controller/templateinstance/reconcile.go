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
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// readinessPoll is how soon an instance whose objects are not all ready is looked at again:
// the controller does not watch every kind it may create.
const readinessPoll = 3 * time.Second

// errRetry asks for a retry with backoff after a failure was written to the status.
var errRetry = errors.New("retry")

// reconcile brings the cluster to the instance's spec, or, when nothing changed since the last
// successful pass, only looks at the objects' readiness.
func (c *Controller) reconcile(ctx context.Context, ti *templatesv1.TemplateInstance) (time.Duration, error) {
	if !slices.Contains(ti.Finalizers, templatesv1.TemplateInstanceFinalizer) {
		ti.Finalizers = append(ti.Finalizers, templatesv1.TemplateInstanceFinalizer)
		updated, err := c.cfg.Instances.TemplatesV1alpha1().TemplateInstances(ti.Namespace).Update(ctx, ti, metav1.UpdateOptions{})
		if err != nil {
			return 0, err
		}
		ti = updated
	}
	if ti.Spec.Requester == nil || ti.Spec.Requester.Username == "" {
		return 0, c.failed(ctx, ti, instance.Fail("NoRequester", "spec.requester is empty: the server sets it from the user who writes the spec"))
	}
	if held, err := c.holdWithoutConsent(ctx, ti); held || err != nil {
		return 0, err
	}
	a, err := c.cfg.Appliers.For(ti.Spec.Requester)
	if err != nil {
		return 0, err
	}
	if adopting(ti) {
		return c.reconcileAdoption(ctx, ti, a)
	}
	if ok, current := c.upToDate(ctx, ti); ok {
		if ti.Spec.Published() {
			return c.refreshPublished(ctx, ti, a, current)
		}
		return c.refreshReadiness(ctx, ti, a, current)
	}

	if ti.Spec.Published() {
		return c.publishPass(ctx, ti, a)
	}
	// The pass up to the apply: render, plan, the objects to prune, the authorization rule.
	pass, err := c.pass.Pass(ctx, ti, a)
	r, plan, objects, keep, prune := pass.Rendered, pass.Plan, pass.Objects, pass.Keep, pass.Prune
	// From here on, no message (a condition, an Event, a log line) quotes a secret value.
	failed := func(err error) error { return c.failed(ctx, ti, r.Scrub(err)) }
	if err != nil {
		return 0, failed(err)
	}
	// What was applied last, to objects nobody changed since, is not applied again.
	live, same, err := c.unchanged(ctx, ti, a, r, plan, prune)
	if err != nil {
		return 0, failed(err)
	}
	if same {
		return c.recordUnchanged(ctx, ti, r, live)
	}
	if err := c.preflight(ctx, ti, a, plan); err != nil {
		return 0, failed(err)
	}
	if r.UnreadGenerated != nil {
		return 0, failed(r.UnreadGenerated)
	}
	// Before anything is applied, the inventory holds the old objects and the new: a pass
	// cut short still knows every object it may have created.
	old := ti.Status.Objects
	known := make(map[string]bool, len(old))
	for _, o := range old {
		known[inventory.ObjectKey(o)] = true
	}
	superset := append([]templatesv1.TemplateInstanceObject(nil), old...)
	for _, o := range objects {
		if !known[inventory.ObjectKey(o)] {
			superset = append(superset, o)
		}
	}
	ti.Status.Objects = superset
	setConditions(ti, metav1.ConditionFalse, "Applying", "applying generation "+fmt.Sprint(ti.Generation), progressing(metav1.ConditionTrue))
	if last := ti.Status.TemplateRevision; r.Revision > 0 && (last == nil || last.Number != r.Revision) {
		from := "no revision"
		if last != nil {
			from = fmt.Sprintf("revision %d", last.Number)
		}
		set(ti, templatesv1.TemplateInstanceRevisionReconciled, metav1.ConditionFalse, "Updating",
			fmt.Sprintf("moving from %s to revision %d of Template %s", from, r.Revision, ti.Spec.TemplateRef.Name))
	}
	if r.Generated != nil {
		ti.Status.GeneratedParametersSecret = GeneratedSecretName(ti.Name)
	}
	if ti, err = c.writeStatus(ctx, ti); err != nil {
		return 0, r.Scrub(err)
	}

	if err := c.apply(ctx, a, plan); err != nil {
		return 0, failed(err)
	}
	objects = objects[:0]
	for _, p := range plan {
		if !p.Generated {
			objects = append(objects, p.Ref)
		}
	}
	left, err := c.prune(ctx, ti, a, old, keep)
	if err != nil {
		return 0, failed(err)
	}
	ti.Status.Objects = append(objects, left...)
	ti.Status.TemplateResourceVersion = r.TemplateResourceVersion
	ti.Status.TemplateRevision = nil
	if r.Revision > 0 {
		ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: r.Revision, AppliedHash: r.Hash, Generation: ti.Generation}
	}
	setRevisionReconciled(ti, r.Current)
	ti.Status.ObservedGeneration = ti.Generation
	if len(left) > 0 {
		setConditions(ti, metav1.ConditionFalse, "Pruning", "waiting for pruned objects to go: "+describeObjects(left), progressing(metav1.ConditionTrue))
	} else {
		setReadiness(ti)
	}
	rotated := ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters] != ""
	if ti, err = c.writeStatus(ctx, ti); err != nil {
		return 0, r.Scrub(err)
	}
	if rotated {
		// The new values are stored and applied: the request is done.
		delete(ti.Annotations, templatesv1.AnnotationRotateGeneratedParameters)
		if _, err := c.cfg.Instances.TemplatesV1alpha1().TemplateInstances(ti.Namespace).Update(ctx, ti, metav1.UpdateOptions{}); err != nil {
			return 0, err
		}
	}
	return pollUnlessDone(ti), nil
}

// upToDate says nothing asks for a new pass: the last one applied this generation of the
// spec and the revision of the Template the instance should run (for a Template stored before
// revisions, this version of it), succeeded, and no rotation is asked for. A change of the
// Template's metadata alone asks for none. It also returns the Template's current revision,
// 0 when there is none.
func (c *Controller) upToDate(ctx context.Context, ti *templatesv1.TemplateInstance) (bool, int64) {
	if ti.Status.ObservedGeneration != ti.Generation || ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters] != "" ||
		meta.IsStatusConditionTrue(ti.Status.Conditions, templatesv1.TemplateInstanceFailed) ||
		(!meta.IsStatusConditionFalse(ti.Status.Conditions, templatesv1.TemplateInstanceProgressing) && !waitingForFlux(ti)) {
		return false, 0
	}
	ref := ti.Spec.TemplateRef
	if ref == nil {
		return true, 0
	}
	t, err := c.cfg.Templates.Template(ctx, ti.Namespace, ref.Name)
	if err != nil {
		return false, 0
	}
	if t.Revision == nil {
		return t.ResourceVersion == ti.Status.TemplateResourceVersion, 0
	}
	applied := ti.Status.TemplateRevision
	return applied != nil && applied.Number == instance.TargetRevision(ti, t), t.Revision.Number
}

// refreshReadiness reads every object as the requester and writes what changed, and whether
// the Template has a revision the instance does not follow (current, 0 when the Template
// records none).
func (c *Controller) refreshReadiness(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier, current int64) (time.Duration, error) {
	before := ti.Status.DeepCopy()
	if current > 0 {
		setRevisionReconciled(ti, current)
	}
	if err := c.readObjects(ctx, ti, a); err != nil {
		return 0, err
	}
	setReadiness(ti)
	if !equalStatus(before, &ti.Status) {
		var err error
		if ti, err = c.writeStatus(ctx, ti); err != nil {
			return 0, err
		}
	}
	if ti.Status.ObservedGeneration != ti.Generation {
		return time.Millisecond, nil
	}
	return pollUnlessDone(ti), nil
}

// waitingForFlux tells a published instance whose pass published its artifact and waits only
// for Flux to apply it: looking again needs no new pass.
func waitingForFlux(ti *templatesv1.TemplateInstance) bool {
	p := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceProgressing)
	return ti.Spec.Published() && p != nil && p.Reason == "Publishing"
}

// readObjects reads every object of the inventory as the requester and records its readiness;
// one deleted behind the instance's back asks for a new pass.
func (c *Controller) readObjects(ctx context.Context, ti *templatesv1.TemplateInstance, a instance.Applier) error {
	for i := range ti.Status.Objects {
		o := &ti.Status.Objects[i]
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			continue
		}
		mapping, err := inventory.Mapping(c.cfg.Mapper, gv.WithKind(o.Kind))
		if err != nil {
			o.Ready = false
			continue
		}
		live, err := a.Get(ctx, instance.Object{Resource: mapping.Resource, Namespace: o.Namespace, Name: o.Name})
		switch {
		case apierrors.IsNotFound(err):
			// Deleted behind the instance's back: the next pass applies it again.
			ti.Status.ObservedGeneration = 0
			o.Ready = false
		case err != nil:
			return err
		default:
			o.Ready, _ = inventory.Ready(live)
		}
	}
	return nil
}

func pollUnlessDone(ti *templatesv1.TemplateInstance) time.Duration {
	if meta.IsStatusConditionTrue(ti.Status.Conditions, templatesv1.TemplateInstanceReady) {
		return 0
	}
	return readinessPoll
}

// setReadiness aggregates the objects' readiness into the conditions of a successful pass.
func setReadiness(ti *templatesv1.TemplateInstance) {
	var waiting []templatesv1.TemplateInstanceObject
	for _, o := range ti.Status.Objects {
		if !o.Ready {
			waiting = append(waiting, o)
		}
	}
	if len(waiting) == 0 {
		setConditions(ti, metav1.ConditionTrue, "Ready", fmt.Sprintf("all %d objects are ready", len(ti.Status.Objects)), progressing(metav1.ConditionFalse))
		return
	}
	setConditions(ti, metav1.ConditionFalse, "NotReady", "not ready yet: "+describeObjects(waiting), progressing(metav1.ConditionFalse))
}

func describeObjects(objects []templatesv1.TemplateInstanceObject) string {
	names := make([]string, len(objects))
	for i, o := range objects {
		names[i] = inventory.DescribeObject(o)
	}
	return strings.Join(names, ", ")
}

type progressing metav1.ConditionStatus

// setConditions sets Ready, Progressing and Failed=False for a pass that did not fail.
func setConditions(ti *templatesv1.TemplateInstance, ready metav1.ConditionStatus, reason, message string, prog progressing) {
	set(ti, templatesv1.TemplateInstanceReady, ready, reason, message)
	set(ti, templatesv1.TemplateInstanceProgressing, metav1.ConditionStatus(prog), reason, message)
	set(ti, templatesv1.TemplateInstanceFailed, metav1.ConditionFalse, reason, message)
}

func set(ti *templatesv1.TemplateInstance, conditionType string, status metav1.ConditionStatus, reason, message string) {
	if len(message) > 32000 {
		message = message[:32000] + "..."
	}
	meta.SetStatusCondition(&ti.Status.Conditions, metav1.Condition{Type: conditionType, Status: status,
		ObservedGeneration: ti.Generation, Reason: reason, Message: message})
}

// failed writes a failure into the conditions and asks for a retry with backoff. An error
// that is no failure of the instance (the cluster answered 5xx, or did not answer) is reported
// the same way, reason ClusterError, so that the instance never hides why it is stuck; a
// conflict of this controller's own writes is only retried.
func (c *Controller) failed(ctx context.Context, ti *templatesv1.TemplateInstance, err error) error {
	var f *failure
	if !errors.As(err, &f) {
		if apierrors.IsConflict(err) {
			return err
		}
		f = instance.Fail("ClusterError", "%s (retrying)", instance.StatusMessage(err))
	}
	set(ti, templatesv1.TemplateInstanceFailed, metav1.ConditionTrue, f.Reason, f.Message)
	set(ti, templatesv1.TemplateInstanceReady, metav1.ConditionFalse, f.Reason, f.Message)
	set(ti, templatesv1.TemplateInstanceProgressing, metav1.ConditionFalse, f.Reason, "retrying with backoff")
	if ref := ti.Spec.TemplateRef; ref != nil {
		runs := "runs no revision of Template " + ref.Name
		if r := ti.Status.TemplateRevision; r != nil {
			runs = fmt.Sprintf("runs revision %d of Template %s", r.Number, ref.Name)
		}
		set(ti, templatesv1.TemplateInstanceRevisionReconciled, metav1.ConditionFalse, f.Reason, runs+"; the last pass failed (see Failed)")
	}
	ti.Status.ObservedGeneration = ti.Generation
	if _, werr := c.writeStatus(ctx, ti); werr != nil {
		return werr
	}
	return errRetry
}

// writeStatus writes the status and returns the instance as stored; a change of its Ready
// condition is an Event.
func (c *Controller) writeStatus(ctx context.Context, ti *templatesv1.TemplateInstance) (*templatesv1.TemplateInstance, error) {
	out, err := c.cfg.Instances.TemplatesV1alpha1().TemplateInstances(ti.Namespace).UpdateStatus(ctx, ti, metav1.UpdateOptions{})
	if err == nil {
		c.recordStatus(ctx, out)
	}
	return out, err
}

func equalStatus(a, b *templatesv1.TemplateInstanceStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || !slices.Equal(a.Objects, b.Objects) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message {
			return false
		}
	}
	return true
}
