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

package rollout

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// The reasons of a rollout's status: the API's (templatesv1.RolloutReason*), named here as
// the controller has always named them.
const (
	ReasonStarted         = templatesv1.RolloutReasonStarted
	ReasonWaveStarted     = templatesv1.RolloutReasonWaveStarted
	ReasonComplete        = templatesv1.RolloutReasonComplete
	ReasonNoRollout       = templatesv1.RolloutReasonNoRollout
	ReasonPausedByUser    = templatesv1.RolloutReasonPausedByUser
	ReasonResumed         = templatesv1.RolloutReasonResumed
	ReasonResumedPastGate = templatesv1.RolloutReasonResumedPastGate
	ReasonWaveTimeout     = templatesv1.RolloutReasonWaveTimeout
	ReasonGateFailed      = templatesv1.RolloutReasonGateFailed
	ReasonGateError       = templatesv1.RolloutReasonGateError
	ReasonPlanMismatch    = templatesv1.RolloutReasonPlanMismatch
)

// PlanHashFunc is the planHash a preview of revision of t answers now: what the rollout would
// apply to every instance (preview.Previewer computes it, as the API does).
type PlanHashFunc func(ctx context.Context, t *templatesv1.Template, revision int64) (string, error)

// Config is what a Reconciler is built from.
type Config struct {
	// Client writes the Templates' status, in this server's own API.
	Client clientset.Interface
	// PlanHash recomputes a preview's plan; nil refuses every rollout that carries one.
	PlanHash PlanHashFunc
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Recorder, when set, records each step of a rollout (a change of its phase, reason or
	// wave) as an Event of the Template, as sample-controller records what it does: Normal,
	// or Warning for a pause the rollout took itself (a gate, a timeout, a plan mismatch).
	Recorder record.EventRecorder
}

// countsEvery is how often a rollout's status is written when only its counts (updated,
// total) changed: each instance turning Ready would otherwise write the Template, with its
// list of moved instances, once per instance.
const countsEvery = 2 * time.Second

// Reconciler takes the steps of Templates' rollouts.
type Reconciler struct {
	cfg Config
	// counted is when each Template's counts alone were last written, by namespace/name.
	counted sync.Map
	// marked are, by namespace/name of the Template, the instances of the last wave marked
	// that the instances' cache did not show marked yet (*markedWave).
	marked sync.Map
}

// Forget drops what r remembers of the rollout of the Template namespace/name, which is gone.
func (r *Reconciler) Forget(namespace, name string) {
	r.counted.Delete(namespace + "/" + name)
	r.marked.Delete(namespace + "/" + name)
}

// New returns a Reconciler of cfg.
func New(cfg Config) *Reconciler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Reconciler{cfg: cfg}
}

// Reconcile takes the next step of t's rollout, given the instances of t's namespace that
// reference it (any policy: those the rollout does not move are left out here), marks the
// instances a new wave moves, and writes the Template's status when it changed. It returns
// when to look again at the latest (a wave's timeout), 0 when only a change of the Template
// or of an instance can move it on.
func (r *Reconciler) Reconcile(ctx context.Context, t *templatesv1.Template, instances []*templatesv1.TemplateInstance) (time.Duration, error) {
	key := t.Namespace + "/" + t.Name
	if t.Revision == nil || t.DeletionTimestamp != nil {
		r.Forget(t.Namespace, t.Name)
		return 0, nil
	}
	var eligible []*templatesv1.TemplateInstance
	for _, ti := range instances {
		if Eligible(ti, t.Name) {
			eligible = append(eligible, ti)
		}
	}
	var before *templatesv1.RolloutStatus
	if t.Status != nil {
		before = t.Status.Rollout
	}
	st, after, err := r.step(ctx, t, before.DeepCopy(), eligible)
	if err != nil || apiequality.Semantic.DeepEqual(before, st) {
		return after, err
	}
	// Only a write of counts alone is remembered, to space the next one: an entry lives while
	// its rollout only counts, and goes with any other write or with the Template.
	if countsOnly(before, st) {
		if last, ok := r.counted.Load(key); ok && r.cfg.Now().Sub(last.(time.Time)) < countsEvery {
			wait := countsEvery - r.cfg.Now().Sub(last.(time.Time))
			if after == 0 || wait < after {
				after = wait
			}
			return after, nil
		}
		r.counted.Store(key, r.cfg.Now())
	} else {
		r.counted.Delete(key)
	}
	t = t.DeepCopy()
	t.Status = &templatesv1.TemplateStatus{Rollout: st}
	written, err := r.cfg.Client.TemplatesV1alpha1().Templates(t.Namespace).UpdateStatus(ctx, t, metav1.UpdateOptions{})
	if err == nil {
		r.record(written, before, st)
	}
	return after, err
}

// record emits the Event of a step from before to st, when the phase, its reason or the wave
// changed.
func (r *Reconciler) record(t *templatesv1.Template, before, st *templatesv1.RolloutStatus) {
	if r.cfg.Recorder == nil || st == nil {
		return
	}
	if before != nil && before.Phase == st.Phase && before.Reason == st.Reason && before.Wave == st.Wave && before.Revision == st.Revision {
		return
	}
	eventType := corev1.EventTypeNormal
	switch st.Reason {
	case ReasonWaveTimeout, ReasonGateFailed, ReasonGateError, ReasonPlanMismatch:
		eventType = corev1.EventTypeWarning
	}
	reason := st.Reason
	if reason == "" {
		reason = string(st.Phase)
	}
	message := st.Message
	if message == "" {
		message = fmt.Sprintf("rollout of revision %d: %s, wave %d of %d", st.Revision, st.Phase, st.Wave, st.Waves)
	}
	r.cfg.Recorder.Event(t, eventType, "Rollout"+reason, message)
}

// countsOnly says a and b differ in their counts alone.
func countsOnly(a, b *templatesv1.RolloutStatus) bool {
	if a == nil || b == nil {
		return false
	}
	c := *b
	c.Updated, c.Total, c.MovedCount = a.Updated, a.Total, a.MovedCount
	return apiequality.Semantic.DeepEqual(a, &c)
}

// ResumeToken is templatesv1.RolloutResumeToken: the annotation value that resumes the
// automatic pause st is in.
func ResumeToken(st *templatesv1.RolloutStatus) string {
	return templatesv1.RolloutResumeToken(st)
}

// step is the rollout's state machine: st (a copy, nil before the first rollout) becomes
// the new status.
func (r *Reconciler) step(ctx context.Context, t *templatesv1.Template, st *templatesv1.RolloutStatus,
	instances []*templatesv1.TemplateInstance) (*templatesv1.RolloutStatus, time.Duration, error) {
	revision := t.Revision.Number
	if t.Rollout == nil {
		if st == nil {
			return nil, 0, nil
		}
		// The rollout was removed: every instance moves at once, as without one.
		st = &templatesv1.RolloutStatus{Revision: revision, FromRevision: st.Revision, Phase: templatesv1.RolloutComplete,
			Reason: ReasonNoRollout, Message: "the Template has no rollout: every Automatic instance moves at once",
			PlanHash: st.PlanHash, StalePlanHash: st.StalePlanHash}
		count(t, st, instances)
		return st, 0, nil
	}
	if st == nil || st.Revision != revision {
		st = start(t, st)
	}
	count(t, st, instances)
	now := r.cfg.Now()
	switch {
	case st.Phase == templatesv1.RolloutComplete:
		return st, 0, nil
	case t.Rollout.Paused:
		if st.Phase != templatesv1.RolloutPaused {
			st.Phase, st.Reason, st.Message = templatesv1.RolloutPaused, ReasonPausedByUser, "paused (rollout.paused): no instance moves until it is false"
			if st.Undo {
				st.Message = fmt.Sprintf("the undo to the content of revision %d's hash is paused (rollout.paused): "+
					"it moves every instance at once when rollout.paused is false", st.Revision)
			}
		}
		return st, 0, nil
	case st.Phase == templatesv1.RolloutPaused && st.Reason == ReasonPausedByUser:
		resume(st, now, "rollout.paused was cleared")
	case st.Phase == templatesv1.RolloutPaused && st.Reason == ReasonPlanMismatch && t.Annotations[templatesv1.AnnotationRolloutPlanHash] != st.PlanHash:
		resume(st, now, "the plan hash changed: checking it again")
	case st.Phase == templatesv1.RolloutPaused:
		if t.Annotations[templatesv1.AnnotationRolloutResume] != ResumeToken(st) {
			return st, 0, nil
		}
		gate := st.Reason == ReasonGateFailed || st.Reason == ReasonGateError
		resume(st, now, "resumed ("+templatesv1.AnnotationRolloutResume+")")
		if gate {
			// Resuming a pause the gate made overrides the gate for this wave: evaluating it again
			// would pause again on the same instances, and the resume would move nobody.
			st.Reason = ReasonResumedPastGate
			st.Message = "resumed (" + templatesv1.AnnotationRolloutResume + "): the gate is not evaluated again for this wave"
		}
	}
	return r.progress(ctx, t, st, instances, now)
}

// start is the status of the rollout of t's current revision, after prev (nil: none before).
// A plan hash the Template still carries from an earlier rollout, or an undo's, is stale: it
// was previewed for another content, so checking it would pause this rollout for good.
func start(t *templatesv1.Template, prev *templatesv1.RolloutStatus) *templatesv1.RolloutStatus {
	revision := t.Revision.Number
	from := revision - 1
	if prev != nil {
		from = prev.Revision
	}
	undo := t.Annotations[templatesv1.AnnotationRolloutUndo] != "" && t.Annotations[templatesv1.AnnotationRolloutUndo] == t.Revision.Hash
	st := &templatesv1.RolloutStatus{Revision: revision, FromRevision: from, Phase: templatesv1.RolloutProgressing, Reason: ReasonStarted, Undo: undo,
		Message: fmt.Sprintf("rolling revision %d out", revision)}
	if plan := t.Annotations[templatesv1.AnnotationRolloutPlanHash]; plan != "" &&
		(undo || (prev != nil && (plan == prev.PlanHash || plan == prev.StalePlanHash))) {
		st.StalePlanHash = plan
	}
	return st
}

// resume makes a paused rollout progress again: the wave under way gets its timeout anew.
func resume(st *templatesv1.RolloutStatus, now time.Time, why string) {
	st.Phase, st.Reason, st.Message, st.Failed, st.FailedCount = templatesv1.RolloutProgressing, ReasonResumed, why, nil, 0
	if st.WaveStartTime != nil {
		st.WaveStartTime = &metav1.Time{Time: now}
	}
}

// pause stops the rollout for why; a resume must name this pause. The status names the
// first RolloutNamesShown instances that failed and counts them all.
func pause(st *templatesv1.RolloutStatus, reason, message string, failed []templatesv1.RolloutFailure) {
	st.Phase, st.Reason, st.Message = templatesv1.RolloutPaused, reason, message
	st.Failed, st.FailedCount = failed[:min(len(failed), templates.RolloutNamesShown)], int32(len(failed))
	if len(failed) == 0 {
		st.Failed = nil
	}
	st.Pauses++
}

// count records how many instances run the revision and are Ready, and how many the rollout
// moved (their marks), of how many.
func count(t *templatesv1.Template, st *templatesv1.RolloutStatus, instances []*templatesv1.TemplateInstance) {
	st.Total, st.Updated, st.MovedCount = int32(len(instances)), 0, 0
	for _, ti := range instances {
		if running(ti) == st.Revision && ready(ti) {
			st.Updated++
		}
		if MovedIn(ti, st.Revision, t.UID) > 0 {
			st.MovedCount++
		}
	}
}

// progress checks the wave under way and, once it is done and its gate holds, starts the
// next one, or completes the rollout.
func (r *Reconciler) progress(ctx context.Context, t *templatesv1.Template, st *templatesv1.RolloutStatus,
	instances []*templatesv1.TemplateInstance, now time.Time) (*templatesv1.RolloutStatus, time.Duration, error) {
	timeout := templates.DefaultRolloutTimeout
	if t.Rollout.Timeout != nil {
		timeout = t.Rollout.Timeout.Duration
	}
	if st.WaveSize > 0 {
		if r.unseen(t, st, instances) {
			return st, unseenRetry, nil
		}
		wait, err := r.checkWave(ctx, t, st, instances, now, timeout)
		if err != nil || wait > 0 || st.Phase == templatesv1.RolloutPaused {
			return st, wait, err
		}
	}

	sizes := waveSizes(t.Rollout.Waves, len(instances))
	if st.Undo {
		sizes = []int{len(instances)}
	}
	st.Waves = int32(len(sizes))
	done := 0
	var candidates []*templatesv1.TemplateInstance
	for _, ti := range instances {
		if n := running(ti); n == 0 || n == st.Revision || MovedIn(ti, st.Revision, t.UID) > 0 {
			done++
		} else {
			candidates = append(candidates, ti)
		}
	}
	if len(candidates) == 0 {
		st.Phase, st.Reason, st.Failed, st.FailedCount, st.Moved, st.WaveSize, st.WaveStartTime = templatesv1.RolloutComplete, ReasonComplete, nil, 0, nil, 0, nil
		st.Wave = st.Waves
		st.Message = fmt.Sprintf("every Automatic instance (%d) runs revision %d", len(instances), st.Revision)
		return st, 0, nil
	}
	next := min(int(st.Wave), len(sizes)-1)
	for next < len(sizes)-1 && sizes[next] <= done {
		next++
	}
	need := max(sizes[next]-done, 1)

	if plan := t.Annotations[templatesv1.AnnotationRolloutPlanHash]; plan != "" && !st.Undo && plan != st.StalePlanHash {
		st.PlanHash = plan
		got := "(none: this server cannot compute plans)"
		if r.cfg.PlanHash != nil {
			var err error
			if got, err = r.cfg.PlanHash(ctx, t, st.Revision); err != nil {
				return st, 0, fmt.Errorf("computing the plan of revision %d: %w", st.Revision, err)
			}
		}
		if got != plan {
			pause(st, ReasonPlanMismatch, fmt.Sprintf("what revision %d would apply now (plan %s) differs from the plan previewed (%s, in %s): "+
				"an instance's values or the content changed since; a resume checks it again: preview again and set the new plan, or remove the annotation",
				st.Revision, got, plan, templatesv1.AnnotationRolloutPlanHash), nil)
			return st, 0, nil
		}
	}

	order(candidates)
	wave := candidates[:min(need, len(candidates))]
	if err := r.mark(ctx, t, st.Revision, int32(next+1), wave); err != nil {
		if apierrors.IsConflict(err) {
			return st, 0, err
		}
		return st, 0, fmt.Errorf("marking the instances of wave %d: %w", next+1, err)
	}
	names := make([]string, len(wave))
	for i, ti := range wave {
		names[i] = ti.Name
	}
	klog.InfoS("Rollout wave started", "template", klog.KObj(t), "revision", st.Revision, "wave", next+1, "instances", len(wave))
	st.Moved = names[:min(len(names), templates.RolloutNamesShown)]
	st.MovedCount += int32(len(wave))
	st.WaveSize, st.Wave, st.WaveStartTime, st.Failed, st.FailedCount = int32(len(wave)), int32(next+1), &metav1.Time{Time: now}, nil, 0
	st.Phase, st.Reason = templatesv1.RolloutProgressing, ReasonWaveStarted
	st.Message = fmt.Sprintf("wave %d of %d: moving %s to revision %d", st.Wave, st.Waves, someNames(names), st.Revision)
	return st, timeout, nil
}

// someNames names the first few of names and counts the others, as a status's message may.
func someNames(names []string) string {
	const shown = 10
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}
