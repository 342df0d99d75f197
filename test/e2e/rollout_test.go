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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// rolloutTemplate is Template app in waves of 1, then 2, then the rest, 20 s each: its
// ConfigMap holds value; with stuck, an instance whose STUCK is true also gets a Job, which
// never completes, so never turns Ready (the suite runs no controller that would run it).
func rolloutTemplate(value string, stuck bool, annotations string) string {
	pvc := ""
	if stuck {
		pvc = `- {apiVersion: batch/v1, kind: Job, metadata: {name: "${NAME}-wait", annotations: {templates.stencil.dev/include-when: params.STUCK}},
   spec: {template: {spec: {restartPolicy: Never, containers: [{name: wait, image: busybox}]}}}}
`
	}
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app, annotations: {` + annotations + `}}
rollout: {waves: [1, 2], gate: "instances.all(i, i.ready && i.revision >= 2)", timeout: 20s}
parameters:
- {name: NAME, required: true}
- {name: STUCK, type: bool, value: "false"}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {k: "` + value + `"}}
` + pvc
}

// TestTemplateRollout, through the real kube-apiserver with token users: an edit makes
// revision 2; a rollout started with a plan hash that differs from what it would apply moves
// nobody; with the preview's plan it moves the oldest Ready instance, then the next, which
// never turns Ready: the rollout pauses at the wave's timeout, says which instance and why,
// and leaves the third on revision 1; a Manual instance never moves; a user with only view,
// or an editor of another namespace, can neither pause nor undo it, nor anyone write its
// status; undo moves every instance back to revision 1's content at once.
func TestTemplateRollout(t *testing.T) {
	ctx := context.Background()
	ns, other := "e2e-rollout", "e2e-rollout-b"
	for _, n := range []string{ns, other} {
		mustKubectl(t, "admin", "", "create", "namespace", n)
	}
	grantEdit(t, ns, "roller")
	grantEdit(t, other, "rollerb")
	mustKubectl(t, "admin", "", "create", "rolebinding", "watcher-view", "-n", ns, "--clusterrole=system:aggregate-to-view", "--user=watcher")
	mustKubectl(t, "admin", "", "create", "rolebinding", "watcher-instance-view", "-n", ns, "--clusterrole=stencil-instance-view", "--user=watcher")

	mustKubectl(t, "roller", rolloutTemplate("one", false, ""), "apply", "-n", ns, "-f", "-")
	instance := func(name, extra string) string {
		return fmt.Sprintf("apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateInstance\nmetadata: {name: %s}\n"+
			"spec:\n  templateRef: {name: app}\n  parameters: {NAME: %s%s}\n", name, name, extra)
	}
	// Created in this order: a-first is the oldest, c-third the youngest (equal seconds
	// are ordered by name, the same order).
	for _, ti := range []string{instance("a-first", ""), instance("b-stuck", ", STUCK: \"true\""), instance("c-third", ""),
		instance("m-manual", "") + "  updatePolicy: Manual\n"} {
		mustKubectl(t, "roller", ti, "apply", "-n", ns, "-f", "-")
	}
	for _, name := range []string{"a-first", "b-stuck", "c-third", "m-manual"} {
		waitInstance(t, ns, name, time.Minute, "Ready on revision 1", onRevision(1))
	}
	// Another namespace's Template, which nobody of this one may touch.
	mustKubectl(t, "rollerb", rolloutTemplate("b", false, ""), "apply", "-n", other, "-f", "-")
	mustKubectl(t, "rollerb", instance("z-other", ""), "apply", "-n", other, "-f", "-")
	waitInstance(t, other, "z-other", time.Minute, "Ready on revision 1", onRevision(1))

	// The preview's plan of the change.
	next := func(annotations string) string { return rolloutTemplate("two", true, annotations) }
	var preview templatesv1.TemplatePreview
	if err := json.Unmarshal([]byte(mustKubectl(t, "roller", next(""), "stencil", "diff", "--template", "app", "-n", ns, "-f", "-", "-o", "json")), &preview); err != nil {
		t.Fatal(err)
	}
	plan := preview.Status.PlanHash
	if !strings.HasPrefix(plan, "sha256:") || preview.Status.Counts["Changed"] != 3 {
		t.Fatalf("preview: %+v", preview.Status)
	}

	// Stored with a plan hash that is not what it would apply: revision 2, which moves nobody.
	stale := "sha256:" + strings.Repeat("0", 64)
	mustKubectl(t, "roller", next(`templates.stencil.dev/rollout-plan-hash: "`+stale+`"`), "apply", "-n", ns, "-f", "-")
	if out := mustKubectl(t, "roller", "", "get", "template", "app", "-n", ns, "-o", "jsonpath={.revision.number}"); out != "2" {
		t.Fatalf("revision after the edit: %q", out)
	}
	waitRollout(t, ns, "paused: the plan differs", func(st *templatesv1.RolloutStatus) error {
		if st.Phase != templatesv1.RolloutPaused || st.Reason != "PlanMismatch" || len(st.Moved) != 0 {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	for _, name := range []string{"a-first", "b-stuck", "c-third"} {
		waitInstance(t, ns, name, time.Second, "still on revision 1 (plan refused)", onRevision(1))
	}
	// A resume would pause again at once on the same plan: it is refused, saying what moves it
	// on (before, it said "rollout resumed" and nothing moved).
	if out, err := env.kubectl("roller", "", "stencil", "rollout", "resume", "app", "-n", ns); err == nil ||
		!strings.Contains(out+err.Error(), "stencil diff --template app --revision 2") {
		t.Errorf("resume of a plan mismatch: %v\n%s", err, out)
	}

	// With the preview's plan: wave 1 moves a-first, wave 2 b-stuck, which never turns
	// Ready: 20 s later the rollout pauses, c-third stays on revision 1.
	mustKubectl(t, "roller", "", "annotate", "template", "app", "-n", ns, "--overwrite", "templates.stencil.dev/rollout-plan-hash="+plan)
	waitInstance(t, ns, "a-first", time.Minute, "Ready on revision 2", onRevision(2))
	st := waitRollout(t, ns, "paused on b-stuck", func(st *templatesv1.RolloutStatus) error {
		if st.Phase != templatesv1.RolloutPaused || st.Reason != "WaveTimeout" {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	if len(st.Failed) != 1 || st.Failed[0].Name != "b-stuck" || st.Failed[0].Reason != "NotReady" || !strings.Contains(st.Failed[0].Message, "b-stuck-wait") ||
		st.Wave != 2 || st.PlanHash != plan {
		t.Errorf("the pause: %+v", st)
	}
	for name, want := range map[string]int64{"a-first": 2, "b-stuck": 2, "c-third": 1, "m-manual": 1} {
		ti := waitInstance(t, ns, name, time.Second, "its revision", func(*templatesv1.TemplateInstance) error { return nil })
		if r := ti.Status.TemplateRevision; r == nil || r.Number != want {
			t.Errorf("%s runs %+v, want revision %d", name, r, want)
		}
	}
	out := mustKubectl(t, "roller", "", "stencil", "rollout", "status", "app", "-n", ns)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`template app: revision 2 from 1: Paused \(WaveTimeout\)`),
		regexp.MustCompile(`b-stuck: NotReady: not ready yet: Job`),
		regexp.MustCompile(`(?m)^c-third +Automatic +1 +True$`),
		regexp.MustCompile(`(?m)^m-manual +Manual +1 +True$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("stencil rollout status does not match %s:\n%s", want, out)
		}
	}

	if out := mustKubectl(t, "roller", "", "get", "template", "app", "-n", ns, "-o", "wide"); !regexp.MustCompile(`(?m)^app .* 2 +Paused \(WaveTimeout\) 1/3$`).MatchString(out) {
		t.Errorf("kubectl get template -o wide:\n%s", out)
	}

	// Hostile: view only, another namespace's editor, and the status, which no role writes.
	for _, attempt := range []struct{ user, namespace, verb string }{
		{"watcher", ns, "pause"}, {"watcher", ns, "undo"}, {"watcher", ns, "resume"},
		{"rollerb", ns, "pause"}, {"rollerb", ns, "undo"}, {"roller", other, "undo"}, {"roller", other, "pause"},
	} {
		if out, err := env.kubectl(attempt.user, "", "stencil", "rollout", attempt.verb, "app", "-n", attempt.namespace); err == nil || !strings.Contains(out+err.Error(), "forbidden") {
			t.Errorf("%s may %s the rollout in %s: %v\n%s", attempt.user, attempt.verb, attempt.namespace, err, out)
		}
	}
	if out, err := env.kubectl("roller", "", "patch", "template", "app", "-n", ns, "--subresource=status", "--type=merge",
		"-p", `{"status":{"rollout":{"revision":2,"phase":"Complete"}}}`); err == nil || !strings.Contains(out+err.Error(), "forbidden") {
		t.Errorf("an editor wrote the rollout's status: %v\n%s", err, out)
	}
	if got := rolloutOf(t, ns); got.Phase != templatesv1.RolloutPaused {
		t.Errorf("after the attempts, the rollout is %+v", got)
	}
	if ti := waitInstance(t, other, "z-other", time.Second, "untouched", onRevision(1)); ti.Generation != 1 {
		t.Errorf("z-other was changed: %+v", ti)
	}

	// Undo: revision 1's content again (revision 3), every instance at once, b-stuck too
	// (its Job is pruned); the Manual one stays where it is.
	out = mustKubectl(t, "roller", "", "stencil", "rollout", "undo", "app", "-n", ns)
	if !strings.Contains(out, "content of revision 1 written back as revision 3") {
		t.Errorf("undo said:\n%s", out)
	}
	for _, name := range []string{"a-first", "b-stuck", "c-third"} {
		waitInstance(t, ns, name, time.Minute, "Ready on revision 3", onRevision(3))
		if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, name+"-config", metav1.GetOptions{}); err != nil || cm.Data["k"] != "one" {
			t.Errorf("%s's ConfigMap after the undo: %v %v", name, cm.Data, err)
		}
	}
	if _, err := kubeAdmin(t).BatchV1().Jobs(ns).Get(ctx, "b-stuck-wait", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("b-stuck's Job after the undo: %v", err)
	}
	waitRollout(t, ns, "the undo complete", func(st *templatesv1.RolloutStatus) error {
		if st.Phase != templatesv1.RolloutComplete || !st.Undo || st.Revision != 3 {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	waitInstance(t, ns, "m-manual", time.Second, "still on revision 1", onRevision(1))

	// The undo dropped the plan previewed for revision 2: the next revision rolls out (before,
	// that plan stayed and paused it with PlanMismatch for good).
	if out := mustKubectl(t, "roller", "", "get", "template", "app", "-n", ns, "-o", `jsonpath={.metadata.annotations.templates\.stencil\.dev/rollout-plan-hash}`); out != "" {
		t.Errorf("the undo kept the plan of the content it replaced: %s", out)
	}
	// A paused rollout is not undone (as kubectl does not undo a paused Deployment).
	mustKubectl(t, "roller", "", "stencil", "rollout", "pause", "app", "-n", ns)
	if out, err := env.kubectl("roller", "", "stencil", "rollout", "undo", "app", "-n", ns); err == nil || !strings.Contains(out+err.Error(), "resume it first") {
		t.Errorf("undo of a paused rollout: %v\n%s", err, out)
	}
	if out := mustKubectl(t, "roller", "", "stencil", "rollout", "resume", "app", "-n", ns); !strings.Contains(out, "rollout resumed") {
		t.Errorf("resume: %s", out)
	}
	mustKubectl(t, "roller", rolloutTemplate("four", false, ""), "apply", "-n", ns, "-f", "-")
	for _, name := range []string{"a-first", "b-stuck", "c-third"} {
		waitInstance(t, ns, name, time.Minute, "Ready on revision 4", onRevision(4))
	}
	tpl, err := stencilAdmin(t).TemplatesV1alpha1().Templates(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := waitInstance(t, ns, "a-first", time.Second, "on revision 4", onRevision(4))
	if got, want := first.Annotations[templatesv1.AnnotationRolloutMoved], "4/1/"+string(tpl.UID); got != want {
		t.Errorf("a-first's mark of the wave that moved it: %q, want %q", got, want)
	}
	// The mark is the server's: a user's write of it (even a cluster admin's) keeps the stored one.
	marks := map[string]string{}
	for _, name := range []string{"a-first", "c-third"} {
		marks[name] = waitInstance(t, ns, name, time.Second, "on revision 4", onRevision(4)).Annotations[templatesv1.AnnotationRolloutMoved]
	}
	mustKubectl(t, "admin", "", "annotate", "--overwrite", "templateinstance", "a-first", "-n", ns, templatesv1.AnnotationRolloutMoved+"=5/1/forged")
	mustKubectl(t, "admin", "", "annotate", "templateinstance", "c-third", "-n", ns, templatesv1.AnnotationRolloutMoved+"-")
	for name, want := range marks {
		ti, err := stencilAdmin(t).TemplatesV1alpha1().TemplateInstances(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ti.Annotations[templatesv1.AnnotationRolloutMoved]; got != want || want == "" {
			t.Errorf("%s's mark after a user's write: %q, want %q", name, got, want)
		}
	}
	waitRollout(t, ns, "revision 4 complete", func(st *templatesv1.RolloutStatus) error {
		if st.Phase != templatesv1.RolloutComplete || st.Revision != 4 || st.MovedCount != 3 {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
}

// rolloutOf is the rollout status of Template app in ns.
func rolloutOf(t *testing.T, ns string) *templatesv1.RolloutStatus {
	t.Helper()
	tpl, err := stencilAdmin(t).TemplatesV1alpha1().Templates(ns).Get(context.Background(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Status == nil || tpl.Status.Rollout == nil {
		return &templatesv1.RolloutStatus{}
	}
	return tpl.Status.Rollout
}

// waitRollout polls Template app's rollout until check accepts it.
func waitRollout(t *testing.T, ns, what string, check func(*templatesv1.RolloutStatus) error) *templatesv1.RolloutStatus {
	t.Helper()
	var last *templatesv1.RolloutStatus
	err := waitFor(time.Minute, what, func(context.Context) error {
		last = rolloutOf(t, ns)
		return check(last)
	})
	if err != nil {
		t.Fatalf("%v\nlast seen: %+v", err, last)
	}
	return last
}
