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
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// The writes of a Template's rollout that stencil rollout and the catalog UI make: pause,
// resume and undo, each a get and an update of the Template as the caller (the right they
// need is the right to update it, as kubectl rollout needs on a Deployment). Each returns what
// it did, in the words the CLI prints; the server's controller does the rest.

// PauseRollout stops the rollout of the Template name where it is (rollout.paused: true).
func PauseRollout(ctx context.Context, cs Interface, namespace, name string) (string, error) {
	return updateTemplate(ctx, cs, namespace, name, pause)
}

// ResumeRollout goes on with a paused rollout: a pause by rollout.paused, or one a wave made.
func ResumeRollout(ctx context.Context, cs Interface, namespace, name string) (string, error) {
	return updateTemplate(ctx, cs, namespace, name, resume)
}

// UndoRollout writes the content of revision to (0: the one the rollout started from) of the
// Template name back, as kubectl rollout undo writes a Deployment's old template back.
func UndoRollout(ctx context.Context, cs Interface, namespace, name string, to int64) (string, error) {
	var said string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		t, err := cs.Templates(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		target := to
		if target == 0 {
			if st := RolloutStatus(t); st != nil && st.FromRevision > 0 {
				target = st.FromRevision
			} else if t.Revision != nil && t.Revision.Number > 1 {
				target = t.Revision.Number - 1
			}
		}
		if target <= 0 {
			return fmt.Errorf("template %s has no revision before this one to go back to", name)
		}
		if t.Rollout != nil && t.Rollout.Paused {
			// As kubectl refuses to undo a paused Deployment: the undo would be paused too, and
			// move nobody until the rollout is resumed.
			return fmt.Errorf("template %s: its rollout is paused (rollout.paused), so an undo would move no instance; "+
				"resume it first (stencil rollout resume %s), then undo", name, name)
		}
		rev, err := cs.TemplateRevisions(namespace).Get(ctx, templatesv1.RevisionName(name, target), metav1.GetOptions{})
		// A revision of that name that the Template does not own is an earlier Template's.
		if apierrors.IsNotFound(err) || (err == nil && (rev.Template != name || !templatesv1.RevisionOwnedBy(rev, t.UID))) {
			return fmt.Errorf("revision %d of template %s is not kept any more (see kubectl get templaterevisions --field-selector template=%s)", target, name, name)
		}
		if err != nil {
			return err
		}
		if t.Revision != nil && t.Revision.Hash == rev.Hash {
			said = fmt.Sprintf("template %s: already holds the content of revision %d", name, target)
			return nil
		}
		var back templatesv1.Template
		if err := json.Unmarshal(rev.Content.Raw, &back); err != nil {
			return fmt.Errorf("reading revision %d: %v", target, err)
		}
		back.TypeMeta, back.ObjectMeta, back.Rollout = t.TypeMeta, t.ObjectMeta, t.Rollout
		if back.Annotations == nil {
			back.Annotations = map[string]string{}
		}
		back.Annotations[templatesv1.AnnotationRolloutUndo] = rev.Hash
		// A plan previewed for the content this replaces, and a resume of its pauses, are not
		// this content's.
		delete(back.Annotations, templatesv1.AnnotationRolloutPlanHash)
		delete(back.Annotations, templatesv1.AnnotationRolloutResume)
		stored, err := cs.Templates(namespace).Update(ctx, &back, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		now := int64(0)
		if stored.Revision != nil {
			now = stored.Revision.Number
		}
		said = fmt.Sprintf("template %s: content of revision %d written back as revision %d; every instance moves to it", name, target, now)
		return nil
	})
	return said, err
}

// pause sets rollout.paused.
func pause(t *templatesv1.Template) (string, error) {
	if t.Rollout == nil {
		return "", fmt.Errorf("template %s has no rollout: its Automatic instances move at once; give it rollout.waves first", t.Name)
	}
	if t.Rollout.Paused {
		return "", nil
	}
	t.Rollout.Paused = true
	return "template " + t.Name + ": rollout paused", nil
}

// resume clears rollout.paused and, when a wave paused the rollout, names that pause in the
// resume annotation: a resume never resumes a later pause. It never says it resumed a rollout
// that would stay where it is: a pause for a plan that no longer matches is not resumed by a
// resume (the controller checks the plan again), so it says what does.
func resume(t *templatesv1.Template) (string, error) {
	if t.Rollout == nil {
		return "", fmt.Errorf("template %s has no rollout", t.Name)
	}
	cleared := t.Rollout.Paused
	t.Rollout.Paused = false
	st := RolloutStatus(t)
	if st == nil || st.Phase != templatesv1.RolloutPaused || st.Reason == templatesv1.RolloutReasonPausedByUser {
		if !cleared {
			return "", nil
		}
		return "template " + t.Name + ": rollout resumed", nil
	}
	if st.Reason == templatesv1.RolloutReasonPlanMismatch {
		why := fmt.Sprintf("the rollout of revision %d is paused because what it would apply differs from the plan previewed (%s): "+
			"a resume would check the plan again and pause again. Preview it again (stencil diff --template %s --revision %d) and set "+
			"the new plan in the %s annotation, or remove the annotation to roll out without a plan",
			st.Revision, st.PlanHash, t.Name, st.Revision, templatesv1.AnnotationRolloutPlanHash)
		if !cleared {
			return "", fmt.Errorf("template %s: %s", t.Name, why)
		}
		return "template " + t.Name + ": rollout.paused cleared, but " + why, nil
	}
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	if t.Annotations[templatesv1.AnnotationRolloutResume] == templatesv1.RolloutResumeToken(st) && !cleared {
		return "", nil
	}
	t.Annotations[templatesv1.AnnotationRolloutResume] = templatesv1.RolloutResumeToken(st)
	said := "template " + t.Name + ": rollout resumed"
	switch st.Reason {
	case templatesv1.RolloutReasonGateFailed, templatesv1.RolloutReasonGateError:
		said += fmt.Sprintf(" past the gate of wave %d: its gate is not evaluated again", st.Wave)
	case templatesv1.RolloutReasonWaveTimeout:
		said += fmt.Sprintf(": wave %d gets its timeout again", st.Wave)
	}
	return said, nil
}

// updateTemplate reads the Template, lets change edit it, and writes it, retrying on
// conflicts. change returns what to say, "" when nothing needs writing.
func updateTemplate(ctx context.Context, cs Interface, namespace, name string, change func(*templatesv1.Template) (string, error)) (string, error) {
	var said string
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		t, err := cs.Templates(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if said, err = change(t); err != nil || said == "" {
			return err
		}
		_, err = cs.Templates(namespace).Update(ctx, t, metav1.UpdateOptions{})
		return err
	})
	if err == nil && said == "" {
		said = "template " + name + ": nothing to change"
	}
	return said, err
}

// RolloutStatus is the Template's rollout status; nil when it has none.
func RolloutStatus(t *templatesv1.Template) *templatesv1.RolloutStatus {
	if t.Status == nil {
		return nil
	}
	return t.Status.Rollout
}
