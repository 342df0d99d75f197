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
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/intstr"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestStatusIsBounded: the status of a rollout over 10,000 instances with long names, whose
// every instance fails its wave with a long message, stays a few KiB: the moved and failed
// instances are counted, and the first 20 named (before: every name, twice, and every failure,
// megabytes past etcd's 1.5 MiB request limit). Each instance records the wave that moved it.
func TestStatusIsBounded(t *testing.T) {
	const n = 10000
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%05d", strings.Repeat("instance", 7), i)
	}
	f := newFixture(t, waves(intstr.FromInt32(1)), names...)
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	st, _ := f.sync() // wave 2: every other instance
	if st.WaveSize != n-1 || st.MovedCount != n || len(st.Moved) != 20 || len(f.moved(2)) != n {
		t.Fatalf("wave 2: waveSize %d, movedCount %d, %d named, %d marked", st.WaveSize, st.MovedCount, len(st.Moved), len(f.moved(2)))
	}
	size := func(st *templatesv1.RolloutStatus) int {
		data, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		return len(data)
	}
	if got := size(st); got > 8<<10 {
		t.Errorf("wave 2 of %d instances: status of %d bytes", n, got)
	}
	for _, ti := range f.instances[1:] {
		setRunning(ti, 1, false)
		ti.Status.Conditions[0].Message = strings.Repeat("not ready: ", 100)
	}
	f.now = f.now.Add(2 * time.Minute)
	st, _ = f.sync()
	if st.Phase != templatesv1.RolloutPaused || st.FailedCount != n-1 || len(st.Failed) != 20 {
		t.Fatalf("the wave timed out: %s, %d failed, %d named", st.Phase, st.FailedCount, len(st.Failed))
	}
	if got := size(st); got > 16<<10 {
		t.Errorf("%d failed instances: status of %d bytes", n-1, got)
	}
}

// TestCountedForgetsRollouts: what the Reconciler remembers to space writes of counts goes with
// any other write and with the Template (before: one entry per Template for ever).
func TestCountedForgetsRollouts(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(3)), "a", "b", "c", "d")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes("a", "b", "c")
	setRunning(f.instance("a"), 2, true)
	f.sync()
	entries := func() int {
		n := 0
		f.r.counted.Range(func(any, any) bool { n++; return true })
		return n
	}
	if entries() != 1 {
		t.Fatalf("a write of counts alone: %d entries, want 1", entries())
	}
	f.passes()
	f.sync() // wave 2 starts: not counts alone
	if entries() != 0 {
		t.Errorf("after a wave started: %d entries", entries())
	}
	f.passes()
	setRunning(f.instance("d"), 2, true)
	f.sync()
	f.r.Forget("ns", "app")
	if entries() != 0 {
		t.Errorf("after the Template was forgotten: %d entries", entries())
	}
}

// TestUndoOfAPausedRollout: content written back while the user paused the rollout stays
// paused, and says that the undo waits (before: the status said every instance moves); once
// resumed, every instance moves at once.
func TestUndoOfAPausedRollout(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1)), "a", "b", "c")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	f.update(func(t *templatesv1.Template) { t.Rollout.Paused = true })
	f.edit(3, "sha256:one", map[string]string{templatesv1.AnnotationRolloutUndo: "sha256:one"})
	st, _ := f.sync()
	if st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonPausedByUser || !st.Undo || len(f.moved(3)) != 0 || !strings.Contains(st.Message, "undo") {
		t.Fatalf("an undo while paused: %+v, moved %v", st, f.moved(3))
	}
	f.update(func(t *templatesv1.Template) { t.Rollout.Paused = false })
	if st, _ = f.sync(); len(f.moved(3)) != 3 || st.Waves != 1 {
		t.Fatalf("resumed: %+v, moved %v", st, f.moved(3))
	}
}

// TestStalePlanHashAfterUndo: a plan hash an earlier rollout checked, left on the Template by an
// undo, is not checked against the next revision (before: the next revision paused with
// PlanMismatch for good, and a resume paused it again); a new plan is checked.
func TestStalePlanHashAfterUndo(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1)), "a", "b")
	f.planHash = "sha256:plan-of-two"
	f.edit(2, "sha256:two", map[string]string{templatesv1.AnnotationRolloutPlanHash: "sha256:plan-of-two"})
	if st, _ := f.sync(); st.PlanHash != "sha256:plan-of-two" || !slices.Equal(f.moved(2), []string{"a"}) {
		t.Fatalf("the plan matches: %+v", st)
	}
	f.edit(3, "sha256:one", map[string]string{templatesv1.AnnotationRolloutUndo: "sha256:one"})
	if st, _ := f.sync(); !st.Undo || st.StalePlanHash != "sha256:plan-of-two" {
		t.Fatalf("undo: %+v", st)
	}
	f.passes()
	f.sync()
	f.planHash = "sha256:plan-of-four"
	f.edit(4, "sha256:four", nil)
	st, _ := f.sync()
	if st.Phase != templatesv1.RolloutProgressing || st.StalePlanHash != "sha256:plan-of-two" || st.PlanHash != "" || len(f.moved(4)) != 1 {
		t.Fatalf("the revision after the undo, the old plan still annotated: %+v", st)
	}
	f.update(func(t *templatesv1.Template) {
		t.Annotations[templatesv1.AnnotationRolloutPlanHash] = "sha256:someone-elses"
	})
	f.passes()
	if st, _ = f.sync(); st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonPlanMismatch || st.PlanHash != "sha256:someone-elses" {
		t.Fatalf("a new plan is checked: %+v", st)
	}
}

// TestResumePastTheGate: resuming a pause the gate made goes on to the next wave (before: the
// gate was evaluated again on the same instances, and the rollout paused again at once).
func TestResumePastTheGate(t *testing.T) {
	r := waves(intstr.FromInt32(1))
	r.Gate = "instances.all(i, i.labels.tier == 'canary')"
	f := newFixture(t, r, "a", "b")
	f.instance("a").Labels = map[string]string{"tier": "stable"}
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	st, _ := f.sync()
	if st.Reason != ReasonGateFailed {
		t.Fatalf("gate false: %+v", st)
	}
	f.update(func(t *templatesv1.Template) { t.Annotations[templatesv1.AnnotationRolloutResume] = ResumeToken(st) })
	if st, _ = f.sync(); st.Phase != templatesv1.RolloutProgressing || !slices.Contains(f.moved(2), "b") || st.Wave != 2 {
		t.Fatalf("resumed past the gate: %+v", st)
	}
}

// TestWaveWaitsForItsMarks: a step that sees the instances before their marks (the cache lags
// behind the patches) does not take the wave under way for done nor move its instances again
// in the next wave; a step from a Template older than the stored one marks nobody.
func TestWaveWaitsForItsMarks(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1), intstr.FromInt32(2)), "a", "b", "c")
	f.edit(2, "sha256:two", nil)
	f.sync()
	lagging := make([]*templatesv1.TemplateInstance, len(f.instances))
	for i, ti := range f.instances {
		lagging[i] = ti.DeepCopy()
		lagging[i].Annotations = nil
	}
	after, err := f.r.Reconcile(context.Background(), f.template(), lagging)
	if err != nil || after != unseenRetry {
		t.Fatalf("a lagging cache: look again after %s, %v; want %s", after, err, unseenRetry)
	}
	if st, _ := f.sync(); st.Wave != 1 || !slices.Equal(f.moved(2), []string{"a"}) {
		t.Fatalf("after the lagging step: %+v, moved %v", st, f.moved(2))
	}

	old := f.template()
	f.passes()
	f.update(func(t *templatesv1.Template) { t.Labels = map[string]string{"changed": "since"} })
	if _, err := f.r.Reconcile(context.Background(), old, f.instances); !apierrors.IsConflict(err) {
		t.Fatalf("a step from an older Template: %v, want a conflict", err)
	}
	if got := f.moved(2); !slices.Equal(got, []string{"a"}) {
		t.Errorf("an older Template marked %v", got)
	}
}
