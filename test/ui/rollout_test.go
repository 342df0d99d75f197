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

package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/test/browser"
)

// TestRolloutPanel opens a template whose rollout of revision 2 a wave paused: the page shows
// where it is and which instance failed and why, and offers the local admin (who may update
// the template: the local server answers the catalog's dry run) resume, pause and undo. Each
// button writes what stencil rollout writes, and the panel then shows the template as stored.
func TestRolloutPanel(t *testing.T) {
	ctx := context.Background()
	templates := client.TemplatesV1alpha1().Templates(lab)
	first := revisionedTemplate("one")
	first.Name = "rolling"
	first.Annotations["openshift.io/display-name"] = "Rolling app"
	first.Rollout = &templatesv1.Rollout{Waves: []intstr.IntOrString{intstr.FromInt32(1)}}
	if _, err := templates.Create(ctx, first, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stored, err := templates.Get(ctx, "rolling", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored.Parameters[0].Value = "two"
	if stored, err = templates.Update(ctx, stored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// As the controller would have written it (a local server runs no rollout).
	stored.Status = &templatesv1.TemplateStatus{Rollout: &templatesv1.RolloutStatus{Revision: 2, FromRevision: 1,
		Phase: templatesv1.RolloutPaused, Reason: "WaveTimeout", Message: "wave 1 of 1: 1 of its 1 instances did not run revision 2 and turn Ready within 10m0s",
		Wave: 1, Waves: 1, Total: 2, Updated: 0, Pauses: 1,
		Failed: []templatesv1.RolloutFailure{{Name: "b-stuck", Reason: "NotReady", Message: "not ready yet: Job lab/b-stuck-wait"}}}}
	if _, err := templates.UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	b := browser.New(t, screenshotDir)
	openLab(b, "rolling")
	b.Run("the rollout panel", browser.WaitFor(`!!document.querySelector('#rollout-resume')`))
	if got := b.Text("#rollout-summary"); got != "Revision 2 from 1: Paused (WaveTimeout)" {
		t.Errorf("the summary says %q", got)
	}
	if got := b.Text("#rollout-failed"); got != "b-stuck: NotReady: not ready yet: Job lab/b-stuck-wait" {
		t.Errorf("the failed instances: %q", got)
	}
	if got := b.Text("#rollout-counts"); got != "wave 1 of 1; 0 of 2 Automatic instances on revision 2 and Ready" {
		t.Errorf("the counts: %q", got)
	}
	b.Screenshot("22-rollout-paused")

	b.Run("resume", chromedp.Click(`#rollout-resume`), browser.WaitFor(`document.querySelector('#rollout-result').textContent !== ''`))
	if got := b.Text("#rollout-result"); !strings.HasPrefix(got, "template rolling: rollout resumed") {
		t.Errorf("resume says %q", got)
	}
	if got := get(t, "rolling"); got.Annotations[templatesv1.AnnotationRolloutResume] != "2/1" {
		t.Errorf("resume wrote %v", got.Annotations)
	}

	// As the controller would say once resumed: progressing, which offers pause and undo.
	stored = get(t, "rolling")
	stored.Status.Rollout.Phase, stored.Status.Rollout.Reason = templatesv1.RolloutProgressing, ""
	if _, err := templates.UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	b = browser.New(t, screenshotDir)
	openLab(b, "rolling")
	b.Run("undo", browser.WaitFor(`!!document.querySelector('#rollout-undo')`), chromedp.Click(`#rollout-undo`),
		browser.WaitFor(`!!document.querySelector('#rollout-undo-confirm')`),
		chromedp.Click(`#rollout-undo-confirm`), browser.WaitFor(`document.querySelector('#rollout-result').textContent.includes('written back')`))
	if got := b.Text("#rollout-result"); got != "template rolling: content of revision 1 written back as revision 3; every instance moves to it" {
		t.Errorf("undo says %q", got)
	}
	if got := get(t, "rolling"); got.Parameters[0].Value != "one" || got.Annotations[templatesv1.AnnotationRolloutUndo] == "" {
		t.Errorf("undo wrote %+v %v", got.Parameters, got.Annotations)
	}
	b.Run("pause", chromedp.Click(`#rollout-pause`), browser.WaitFor(`!!document.querySelector('#rollout-paused')`))
	if got := get(t, "rolling"); got.Rollout == nil || !got.Rollout.Paused {
		t.Errorf("pause wrote %+v", got.Rollout)
	}
	if got := b.Text("#rollout-result"); got != "template rolling: rollout paused" {
		t.Errorf("pause says %q", got)
	}
	var offered string
	b.Eval(`[...document.querySelectorAll('#rollout-actions button')].map(b => b.id).join(' ')`, &offered)
	if offered != "rollout-resume" {
		t.Errorf("a paused rollout offers %q, want resume only (an undo waits for the resume)", offered)
	}
	b.Screenshot("23-rollout-undone-paused")
	if strings.Contains(b.Text("body"), "You may not") {
		t.Error("the local admin is told they may not")
	}
}

func get(t *testing.T, name string) *templatesv1.Template {
	t.Helper()
	got, err := client.TemplatesV1alpha1().Templates(lab).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
