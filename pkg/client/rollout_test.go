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

package client

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
)

func rolloutFixture(st *templatesv1.RolloutStatus) fakeClient {
	t := &templatesv1.Template{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns", UID: "app-uid"}, Message: "two",
		Revision: &templatesv1.RevisionStamp{Number: 2, Hash: "sha256:two"}, Rollout: &templatesv1.Rollout{},
		Status: &templatesv1.TemplateStatus{Rollout: st}}
	owner := []metav1.OwnerReference{{APIVersion: "templates.stencil.dev/v1alpha1", Kind: "Template", Name: "app", UID: "app-uid", Controller: ptr.To(true)}}
	one := &templatesv1.TemplateRevision{ObjectMeta: metav1.ObjectMeta{Name: "app-1", Namespace: "ns", OwnerReferences: owner}, Template: "app", Revision: 1,
		Hash: "sha256:one", Content: runtime.RawExtension{Raw: []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","message":"one"}`)}}
	return fakeClient{fake.NewSimpleClientset(t, one)}
}

func stored(t *testing.T, cs fakeClient) *templatesv1.Template {
	t.Helper()
	got, err := cs.TemplatesV1alpha1().Templates("ns").Get(context.Background(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRolloutPauseResume: pause sets rollout.paused; resume clears it and names the automatic
// pause it resumes, and writes nothing when there is nothing to resume.
func TestRolloutPauseResume(t *testing.T) {
	cs := rolloutFixture(&templatesv1.RolloutStatus{Revision: 2, Phase: templatesv1.RolloutPaused, Reason: "WaveTimeout", Pauses: 3})
	ctx := context.Background()
	if said, err := PauseRollout(ctx, cs, "ns", "app"); err != nil || !stored(t, cs).Rollout.Paused || said != "template app: rollout paused" {
		t.Fatalf("pause: %q %v, %+v", said, err, stored(t, cs).Rollout)
	}
	if _, err := ResumeRollout(ctx, cs, "ns", "app"); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, cs); got.Rollout.Paused || got.Annotations[templatesv1.AnnotationRolloutResume] != "2/3" {
		t.Fatalf("resume: %+v %v", got.Rollout, got.Annotations)
	}
	if said, err := ResumeRollout(ctx, cs, "ns", "app"); err != nil || !strings.Contains(said, "nothing to change") {
		t.Errorf("a second resume: %v %q", err, said)
	}
	noRollout := stored(t, cs)
	noRollout.Rollout = nil
	if _, err := pause(noRollout); err == nil || !strings.Contains(err.Error(), "has no rollout") {
		t.Errorf("pausing a Template without a rollout: %v", err)
	}
}

// TestRolloutUndo: undo writes the content of the revision the rollout started from back,
// keeping the metadata and the rollout, with the undo annotation holding its hash.
func TestRolloutUndo(t *testing.T) {
	cs := rolloutFixture(&templatesv1.RolloutStatus{Revision: 2, FromRevision: 1, Phase: templatesv1.RolloutPaused})
	if _, err := UndoRollout(context.Background(), cs, "ns", "app", 0); err != nil {
		t.Fatal(err)
	}
	got := stored(t, cs)
	if got.Message != "one" || got.Rollout == nil || got.Annotations[templatesv1.AnnotationRolloutUndo] != "sha256:one" || got.Name != "app" {
		t.Errorf("after the undo: message %q, rollout %+v, annotations %v", got.Message, got.Rollout, got.Annotations)
	}
	if _, err := UndoRollout(context.Background(), cs, "ns", "app", 7); err == nil || !strings.Contains(err.Error(), "revision 7 of template app is not kept") {
		t.Errorf("undo to a revision not kept: %v", err)
	}
}

// TestRolloutUndoRefusesWhatWouldNotMove: a paused rollout is not undone (kubectl does not undo
// a paused Deployment: before, the undo printed that every instance moves while the pause held
// them all); an undo drops the plan-hash and resume annotations of the content it replaces
// (before, the old plan paused the next revision for good); and a revision an earlier
// Template of the same name left is no revision of this one.
func TestRolloutUndoRefusesWhatWouldNotMove(t *testing.T) {
	ctx := context.Background()
	cs := rolloutFixture(&templatesv1.RolloutStatus{Revision: 2, FromRevision: 1, Phase: templatesv1.RolloutPaused, Reason: "PausedByUser"})
	paused := stored(t, cs)
	paused.Rollout.Paused = true
	paused.Annotations = map[string]string{templatesv1.AnnotationRolloutPlanHash: "sha256:plan-of-two", templatesv1.AnnotationRolloutResume: "2/1"}
	if _, err := cs.TemplatesV1alpha1().Templates("ns").Update(ctx, paused, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	said, err := UndoRollout(ctx, cs, "ns", "app", 0)
	if err == nil || !strings.Contains(err.Error(), "resume it first") || strings.Contains(said, "moves") {
		t.Fatalf("undo of a paused rollout: %v, %q", err, said)
	}
	if got := stored(t, cs); got.Message != "two" {
		t.Fatalf("a refused undo wrote the content back: %q", got.Message)
	}
	if _, err := ResumeRollout(ctx, cs, "ns", "app"); err != nil {
		t.Fatal(err)
	}
	if _, err := UndoRollout(ctx, cs, "ns", "app", 0); err != nil {
		t.Fatal(err)
	}
	got := stored(t, cs)
	if got.Message != "one" || got.Annotations[templatesv1.AnnotationRolloutPlanHash] != "" || got.Annotations[templatesv1.AnnotationRolloutResume] != "" {
		t.Errorf("after the undo: %q %v", got.Message, got.Annotations)
	}

	// Revision 1 of an earlier Template named app.
	cs = rolloutFixture(&templatesv1.RolloutStatus{Revision: 2, FromRevision: 1, Phase: templatesv1.RolloutComplete})
	old, err := cs.TemplatesV1alpha1().TemplateRevisions("ns").Get(ctx, "app-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old.OwnerReferences[0].UID = "earlier-uid"
	if err := cs.Tracker().Update(templatesv1.SchemeGroupVersion.WithResource("templaterevisions"), old, "ns"); err != nil {
		t.Fatal(err)
	}
	if _, err := UndoRollout(ctx, cs, "ns", "app", 1); err == nil || !strings.Contains(err.Error(), "not kept") {
		t.Errorf("undo to an earlier Template's revision: %v", err)
	}
}

// TestRolloutResumeSaysWhatMoves: a resume of a pause for a plan that no longer matches is
// refused with what to do (before, it said "resumed" and the controller paused again at
// once); clearing rollout.paused over such a pause says the rollout stays paused; resuming a
// pause its gate made says the gate is passed.
func TestRolloutResumeSaysWhatMoves(t *testing.T) {
	ctx := context.Background()
	mismatch := &templatesv1.RolloutStatus{Revision: 2, FromRevision: 1, Phase: templatesv1.RolloutPaused, Reason: "PlanMismatch", Pauses: 1, PlanHash: "sha256:old-plan"}
	cs := rolloutFixture(mismatch)
	said, err := ResumeRollout(ctx, cs, "ns", "app")
	if err == nil || !strings.Contains(err.Error(), "stencil diff --template app --revision 2") || strings.Contains(said, "resumed") {
		t.Fatalf("resume of a plan mismatch: %v %q", err, said)
	}
	if got := stored(t, cs); got.Annotations[templatesv1.AnnotationRolloutResume] != "" {
		t.Errorf("a refused resume wrote %v", got.Annotations)
	}
	paused := stored(t, cs)
	paused.Rollout.Paused = true
	if _, err := cs.TemplatesV1alpha1().Templates("ns").Update(ctx, paused, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if said, err := ResumeRollout(ctx, cs, "ns", "app"); err != nil || !strings.Contains(said, "rollout.paused cleared, but") || stored(t, cs).Rollout.Paused {
		t.Errorf("clearing rollout.paused over a plan mismatch: %v %q", err, said)
	}

	cs = rolloutFixture(&templatesv1.RolloutStatus{Revision: 2, Phase: templatesv1.RolloutPaused, Reason: "GateFailed", Wave: 1, Pauses: 2})
	if said, err := ResumeRollout(ctx, cs, "ns", "app"); err != nil || !strings.Contains(said, "past the gate of wave 1") ||
		stored(t, cs).Annotations[templatesv1.AnnotationRolloutResume] != "2/2" {
		t.Errorf("resume of a gate's pause: %v %q", err, said)
	}
}
