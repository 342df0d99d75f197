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

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
)

func rolloutFixture(st *templatesv1.RolloutStatus) *fake.Clientset {
	t := &templatesv1.Template{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns"}, Message: "two",
		Revision: &templatesv1.RevisionStamp{Number: 2, Hash: "sha256:two"}, Rollout: &templatesv1.Rollout{},
		Status: &templatesv1.TemplateStatus{Rollout: st}}
	one := &templatesv1.TemplateRevision{ObjectMeta: metav1.ObjectMeta{Name: "app-1", Namespace: "ns"}, Template: "app", Revision: 1,
		Hash: "sha256:one", Content: runtime.RawExtension{Raw: []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","message":"one"}`)}}
	return fake.NewSimpleClientset(t, one)
}

func stored(t *testing.T, cs *fake.Clientset) *templatesv1.Template {
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
