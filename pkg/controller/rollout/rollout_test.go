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
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func TestWaveSizes(t *testing.T) {
	for _, tc := range []struct {
		waves []intstr.IntOrString
		total int
		want  []int
	}{
		{[]intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("10%"), intstr.FromString("50%"), intstr.FromString("100%")}, 20, []int{1, 2, 10, 20}},
		{[]intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("10%"), intstr.FromString("50%"), intstr.FromString("100%")}, 3, []int{1, 2, 3}},
		{[]intstr.IntOrString{intstr.FromInt32(5)}, 3, []int{3}},
		{[]intstr.IntOrString{intstr.FromString("34%")}, 1000, []int{340, 1000}},
		{nil, 4, []int{4}},
		{nil, 0, []int{0}},
	} {
		if got := waveSizes(tc.waves, tc.total); !slices.Equal(got, tc.want) {
			t.Errorf("waveSizes(%v, %d) = %v, want %v", tc.waves, tc.total, got, tc.want)
		}
	}
}

// TestOrder: Ready instances first, then the oldest, then by name (kro#1259).
func TestOrder(t *testing.T) {
	f := newFixture(t, nil, "d-new", "c-old", "b-broken", "a-same-age")
	f.instance("c-old").CreationTimestamp = metav1.NewTime(epoch.Add(-time.Hour))
	f.instance("a-same-age").CreationTimestamp = f.instance("d-new").CreationTimestamp
	setRunning(f.instance("b-broken"), 1, false)
	f.instance("b-broken").CreationTimestamp = metav1.NewTime(epoch.Add(-2 * time.Hour))
	list := slices.Clone(f.instances)
	order(list)
	var got []string
	for _, ti := range list {
		got = append(got, ti.Name)
	}
	if want := []string{"c-old", "a-same-age", "d-new", "b-broken"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestRolloutInWaves: a new revision moves the Automatic instances wave by wave, each wave
// once the one before runs it and is Ready and the gate holds, and completes; pinned and Manual
// instances are neither moved nor counted.
func TestRolloutInWaves(t *testing.T) {
	r := waves(intstr.FromInt32(1), intstr.FromString("50%"))
	r.Gate = "instances.all(i, i.ready && i.revision == 2)"
	f := newFixture(t, r, "a", "b", "c", "d", "pinned", "manual")
	f.instance("pinned").Spec.TemplateRef.Revision = 1
	f.instance("manual").Spec.UpdatePolicy = templatesv1.UpdatePolicyManual

	if st, _ := f.sync(); st.Phase != templatesv1.RolloutComplete || st.Revision != 1 {
		t.Fatalf("revision 1, every instance on it: %+v", st)
	}
	f.edit(2, "sha256:two", nil)
	st, after := f.sync()
	if st.Phase != templatesv1.RolloutProgressing || !slices.Equal(st.Moved, []string{"a"}) || st.Wave != 1 || st.Waves != 3 || st.Total != 4 || after != time.Minute {
		t.Fatalf("wave 1: %+v (look again after %s)", st, after)
	}
	if st, _ := f.sync(); !slices.Equal(st.Moved, []string{"a"}) {
		t.Fatalf("wave 1 started again before its instance moved: %+v", st)
	}
	f.passes()
	st, _ = f.sync()
	if !slices.Equal(f.moved(2), []string{"a", "b"}) || !slices.Equal(st.Moved, []string{"b"}) || st.MovedCount != 2 || st.Wave != 2 || st.Updated != 1 {
		t.Fatalf("wave 2 (50%% of 4): %+v", st)
	}
	f.passes()
	st, _ = f.sync()
	if !slices.Equal(f.moved(2), []string{"a", "b", "c", "d"}) || st.Wave != 3 || st.WaveSize != 2 || st.MovedCount != 4 {
		t.Fatalf("wave 3 (the rest): %+v", st)
	}
	f.passes()
	st, _ = f.sync()
	if st.Phase != templatesv1.RolloutComplete || st.Moved != nil || st.Updated != 4 || st.FromRevision != 1 {
		t.Fatalf("complete: %+v", st)
	}
	if got := revisions(f); !maps.Equal(got, map[string]int64{"a": 2, "b": 2, "c": 2, "d": 2, "pinned": 1, "manual": 1}) {
		t.Errorf("revisions %v", got)
	}
}

// TestWaveTimeoutPauses: an instance of a wave that never turns Ready pauses the rollout at
// the wave's timeout, naming it and why; the others stay on the revision they run; a resume
// must name this pause, and gives the wave its timeout again.
func TestWaveTimeoutPauses(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1), intstr.FromInt32(2)), "a", "b", "c")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	f.sync() // wave 2 moves b
	f.passes("b")
	st, after := f.sync()
	if st.Phase != templatesv1.RolloutProgressing || after != time.Minute {
		t.Fatalf("before the timeout: %+v, after %s", st, after)
	}
	f.now = f.now.Add(40 * time.Second)
	if st, after = f.sync(); after != 20*time.Second {
		t.Fatalf("40s into the wave: look again after %s, want 20s", after)
	}
	f.now = f.now.Add(21 * time.Second)
	st, _ = f.sync()
	if st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonWaveTimeout || st.Pauses != 1 || len(st.Failed) != 1 ||
		st.Failed[0].Name != "b" || st.Failed[0].Reason != "NotReady" || !strings.Contains(st.Message, "within 1m0s") {
		t.Fatalf("after the timeout: %+v", st)
	}
	if got := revisions(f); !maps.Equal(got, map[string]int64{"a": 2, "b": 2, "c": 1}) {
		t.Errorf("revisions %v: c must stay on 1", got)
	}

	f.update(func(t *templatesv1.Template) { t.Annotations[templatesv1.AnnotationRolloutResume] = "2/0" })
	if st, _ = f.sync(); st.Phase != templatesv1.RolloutPaused {
		t.Fatalf("a resume naming another pause resumed: %+v", st)
	}
	f.update(func(t *templatesv1.Template) { t.Annotations[templatesv1.AnnotationRolloutResume] = ResumeToken(st) })
	st, after = f.sync()
	if st.Phase != templatesv1.RolloutProgressing || st.Reason != ReasonResumed || after != time.Minute || !st.WaveStartTime.Time.Equal(f.now) {
		t.Fatalf("resumed: %+v after %s", st, after)
	}
	f.passes()
	if f.sync(); !slices.Contains(f.moved(2), "c") {
		t.Fatalf("once b is Ready, wave 3: %+v", st)
	}
}

// TestGateFalsePauses: a wave whose instances are Ready but whose gate is false pauses the
// rollout, naming the wave's instances; an undo ignores the gate.
func TestGateFalsePauses(t *testing.T) {
	r := waves(intstr.FromInt32(1))
	r.Gate = "instances.all(i, i.labels.tier == 'canary')"
	f := newFixture(t, r, "a", "b")
	f.instance("a").Labels = map[string]string{"tier": "stable"}
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	st, _ := f.sync()
	if st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonGateFailed || len(st.Failed) != 1 || st.Failed[0].Name != "a" || slices.Contains(f.moved(2), "b") {
		t.Fatalf("gate false: %+v", st)
	}
	f.instance("a").Labels = map[string]string{"tier": "canary"}
	f.update(func(t *templatesv1.Template) { t.Annotations[templatesv1.AnnotationRolloutResume] = ResumeToken(st) })
	if st, _ = f.sync(); !slices.Contains(f.moved(2), "b") {
		t.Fatalf("gate true after the resume: %+v", st)
	}
}

// TestPausedByUser: rollout.paused stops the rollout where it is, and clearing it goes on.
func TestPausedByUser(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1)), "a", "b")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.update(func(t *templatesv1.Template) { t.Rollout.Paused = true })
	f.passes()
	st, _ := f.sync()
	if st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonPausedByUser || slices.Contains(f.moved(2), "b") {
		t.Fatalf("paused: %+v", st)
	}
	f.now = f.now.Add(time.Hour)
	if st, _ = f.sync(); st.Phase != templatesv1.RolloutPaused {
		t.Fatalf("a user's pause timed out: %+v", st)
	}
	f.update(func(t *templatesv1.Template) { t.Rollout.Paused = false })
	if st, _ = f.sync(); !slices.Contains(f.moved(2), "b") {
		t.Fatalf("unpaused: %+v", st)
	}
}

// TestUndo: content written back by `stencil rollout undo` (its hash in the undo annotation)
// moves every instance in one wave, those that never left the old content too, gate or not.
func TestUndo(t *testing.T) {
	r := waves(intstr.FromInt32(1))
	r.Gate = "false"
	f := newFixture(t, r, "a", "b", "c")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes("a")
	f.now = f.now.Add(2 * time.Minute)
	if st, _ := f.sync(); st.Phase != templatesv1.RolloutPaused {
		t.Fatalf("wave 1 timed out: %+v", st)
	}
	f.edit(3, "sha256:one", map[string]string{templatesv1.AnnotationRolloutUndo: "sha256:one"})
	st, _ := f.sync()
	if !st.Undo || st.Waves != 1 || len(f.moved(3)) != 3 || st.WaveSize != 3 || st.FromRevision != 2 || st.Phase != templatesv1.RolloutProgressing {
		t.Fatalf("undo: %+v", st)
	}
	f.passes()
	if st, _ = f.sync(); st.Phase != templatesv1.RolloutComplete {
		t.Fatalf("undo done: %+v", st)
	}
	// A later edit with the annotation left behind is a rollout in waves again.
	f.edit(4, "sha256:four", nil)
	if st, _ = f.sync(); st.Undo || len(f.moved(4)) != 1 {
		t.Fatalf("the edit after an undo: %+v", st)
	}
}

// TestPlanHashMismatch: a rollout started with a preview's plan hash moves no instance while
// the plan it would apply differs, and goes on once the annotation carries the plan it would.
func TestPlanHashMismatch(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1)), "a", "b")
	f.planHash = "sha256:changed-since"
	f.edit(2, "sha256:two", map[string]string{templatesv1.AnnotationRolloutPlanHash: "sha256:previewed"})
	st, _ := f.sync()
	if st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonPlanMismatch || len(f.moved(2)) != 0 || st.PlanHash != "sha256:previewed" ||
		!strings.Contains(st.Message, "sha256:changed-since") {
		t.Fatalf("mismatch: %+v", st)
	}
	f.update(func(t *templatesv1.Template) { t.Annotations[templatesv1.AnnotationRolloutResume] = ResumeToken(st) })
	if st, _ = f.sync(); st.Reason != ReasonPlanMismatch || len(f.moved(2)) != 0 {
		t.Fatalf("a resume without a new plan went on: %+v", st)
	}
	f.update(func(t *templatesv1.Template) {
		t.Annotations[templatesv1.AnnotationRolloutPlanHash] = "sha256:changed-since"
	})
	if st, _ = f.sync(); !slices.Equal(f.moved(2), []string{"a"}) {
		t.Fatalf("the plan matches: %+v", st)
	}
	calls := f.planCalls
	f.passes()
	f.sync()
	if f.planCalls != calls+1 {
		t.Errorf("the plan is checked before each wave: %d calls, want %d", f.planCalls, calls+1)
	}
}

// TestNoRollout: a Template without a rollout gets no status; one whose rollout was removed
// completes (everyone moves at once).
func TestNoRollout(t *testing.T) {
	f := newFixture(t, nil, "a")
	f.edit(2, "sha256:two", nil)
	if st, _ := f.sync(); st != nil {
		t.Fatalf("no rollout: status %+v", st)
	}
	f.update(func(t *templatesv1.Template) { t.Rollout = waves(intstr.FromInt32(1)) })
	f.edit(3, "sha256:three", nil)
	f.sync()
	f.update(func(t *templatesv1.Template) { t.Rollout = nil })
	if st, _ := f.sync(); st.Phase != templatesv1.RolloutComplete || st.Reason != ReasonNoRollout {
		t.Fatalf("rollout removed: %+v", st)
	}
}

// TestGateErrorPauses: a gate that fails on the wave's instances (a label it reads is not
// there) pauses the rollout as a false one does, saying why.
func TestGateErrorPauses(t *testing.T) {
	r := waves(intstr.FromInt32(1))
	r.Gate = "instances.all(i, i.labels.tier == 'canary')"
	f := newFixture(t, r, "a", "b")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	if st, _ := f.sync(); st.Phase != templatesv1.RolloutPaused || st.Reason != ReasonGateError || !strings.Contains(st.Message, "no such key") {
		t.Fatalf("gate error: %+v", st)
	}
}

// TestRefusedInstancePausesItsWave: an instance whose pass the authorization rule refuses
// (its requester, or the revision's author, may not create an object) fails, never runs the
// revision, and so pauses its wave at the timeout, named with the refusal; the rollout moves
// no one further.
func TestRefusedInstancePausesItsWave(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(1)), "a", "b")
	f.edit(2, "sha256:two", nil)
	f.sync()
	a := f.instance("a")
	a.Status.Conditions = append(a.Status.Conditions, metav1.Condition{Type: templatesv1.TemplateInstanceFailed, Status: metav1.ConditionTrue,
		Reason: "AuthorForbidden", Message: "ConfigMap ns/a-config: mallory (the author of Template app) may not create it"})
	f.now = f.now.Add(2 * time.Minute)
	st, _ := f.sync()
	if st.Phase != templatesv1.RolloutPaused || len(st.Failed) != 1 || st.Failed[0].Reason != "AuthorForbidden" || slices.Contains(f.moved(2), "b") {
		t.Fatalf("a refused instance: %+v", st)
	}
	if got := revisions(f); !maps.Equal(got, map[string]int64{"a": 1, "b": 1}) {
		t.Errorf("revisions %v", got)
	}
}

// TestCountsAreWrittenAtMostEvery2s: instances turning Ready one by one write the Template's
// status at most every 2 s when nothing but the counts changed; the later count is written
// once that time has passed.
func TestCountsAreWrittenAtMostEvery2s(t *testing.T) {
	f := newFixture(t, waves(intstr.FromInt32(3)), "a", "b", "c", "d")
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes("a", "b", "c")
	writes := func() int {
		n := 0
		for _, a := range f.client.Actions() {
			if a.GetVerb() == "update" && a.GetSubresource() == "status" {
				n++
			}
		}
		return n
	}
	base := writes()
	for _, name := range []string{"a", "b"} {
		setRunning(f.instance(name), 2, true)
		f.sync()
	}
	if got := writes() - base; got != 1 {
		t.Errorf("two instances turned Ready within 2 s: %d status writes, want 1", got)
	}
	f.now = f.now.Add(3 * time.Second)
	if st, _ := f.sync(); st.Updated != 2 {
		t.Errorf("after 2 s the count is written: %+v", st)
	}
}
