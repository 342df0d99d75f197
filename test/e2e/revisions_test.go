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
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// revisionedTemplate renders a ConfigMap holding VALUE (default dflt) and a connection URL
// with the generated PASSWORD and VALUE in it, and a Secret holding the password.
func revisionedTemplate(dflt, enum string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
parameters:
- {name: NAME, required: true}
- {name: VALUE, value: "` + dflt + `"` + enum + `}
- {name: PASSWORD, generate: expression, from: "[a-z0-9]{24}"}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {k: "${VALUE}", url: "db://u:${PASSWORD}@${VALUE}"}}
- {apiVersion: v1, kind: Secret, metadata: {name: "${NAME}-auth"}, stringData: {password: "${PASSWORD}"}}
`
}

// onRevision waits until the instance is Ready on revision number.
func onRevision(number int64) func(*templatesv1.TemplateInstance) error {
	return func(ti *templatesv1.TemplateInstance) error {
		if r := ti.Status.TemplateRevision; r == nil || r.Number != number {
			return fmt.Errorf("on revision %+v, want %d", ti.Status.TemplateRevision, number)
		}
		return conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue)(ti)
	}
}

// TestTemplateRevisionsAndPreview, through the real kube-apiserver with token users: the
// Template's first content is revision 1; a preview of a change classifies three Automatic
// instances by their own values (unchanged, changed, breaks its parameters) and leaves a
// Manual one out; a user who may not read the instances' Secrets learns nothing of them
// (Forbidden), a user who may sees the changes with the generated password masked; storing
// the change makes revision 2, which the
// Automatic instances move to (but the one it breaks) and the Manual one never does.
func TestTemplateRevisionsAndPreview(t *testing.T) {
	ctx := context.Background()
	ns := "e2e-revisions"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	grantEdit(t, ns, "owner")
	// planner previews: it may process and read templates and instances, and create and patch
	// what the template renders (the candidate's author must be allowed), but read no Secret.
	for _, role := range []string{"stencil-process", "stencil-view", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "planner-"+role, "-n", ns, "--clusterrole="+role, "--user=planner")
	}
	mustKubectl(t, "admin", "", "create", "role", "writer", "-n", ns, "--verb=create,patch,delete", "--resource=configmaps,secrets")
	mustKubectl(t, "admin", "", "create", "rolebinding", "planner-writer", "-n", ns, "--role=writer", "--user=planner")

	mustKubectl(t, "admin", revisionedTemplate("one", ""), "apply", "-n", ns, "-f", "-")
	if out := mustKubectl(t, "owner", "", "get", "templaterevisions", "-n", ns); !regexp.MustCompile(`(?m)^app-1 +app +1 +[0-9a-f]{12} +e2e-admin `).MatchString(out) {
		t.Fatalf("kubectl get templaterevisions:\n%s", out)
	}
	instance := func(name, values, policy string) string {
		return fmt.Sprintf("apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateInstance\nmetadata: {name: %s}\n"+
			"spec:\n  templateRef: {name: app}\n  updatePolicy: %s\n  parameters: {NAME: %s%s}\n", name, policy, name, values)
	}
	for _, ti := range []string{instance("a-default", "", "Automatic"), instance("b-explicit", ", VALUE: one", "Automatic"),
		instance("c-three", ", VALUE: three", "Automatic"), instance("m-manual", "", "Manual")} {
		mustKubectl(t, "owner", ti, "apply", "-n", ns, "-f", "-")
	}
	for _, name := range []string{"a-default", "b-explicit", "c-three", "m-manual"} {
		waitInstance(t, ns, name, time.Minute, "Ready on revision 1", onRevision(1))
	}
	password := generatedPassword(t, ns, "a-default")

	next := revisionedTemplate("two", ", enum: [one, two]")
	// planner may not read the Secrets that keep the instances' generated values: the preview
	// answers nothing of those instances.
	out := mustKubectl(t, "planner", next, "stencil", "diff", "--template", "app", "-n", ns, "-f", "-")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^a-default +Forbidden +1 *$`),
		regexp.MustCompile(`(?m)^b-explicit +Forbidden +1 *$`),
		regexp.MustCompile(`(?m)^c-three +Forbidden +1 *$`),
		regexp.MustCompile(`(?m)^m-manual +skipped \(Manual\)`),
		regexp.MustCompile(`planner may not get Secret ` + ns + `/a-default-generated, which the instance reads its values from`),
	} {
		if !want.MatchString(out) {
			t.Errorf("planner's preview does not match %s:\n%s", want, out)
		}
	}
	// The owner may read them: the classifications, every secret value masked.
	out = mustKubectl(t, "owner", next, "stencil", "diff", "--template", "app", "-n", ns, "-f", "-")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^a-default +Changed +1 +1 changed$`),
		regexp.MustCompile(`(?m)^b-explicit +Unchanged +1 *$`),
		regexp.MustCompile(`(?m)^c-three +BreaksParameters +1 *$`),
		regexp.MustCompile(`~ \.data\.k: "one" -> "two"`),
		regexp.MustCompile(`~ \.data\.url: \(masked\) -> \(masked\)`),
	} {
		if !want.MatchString(out) {
			t.Errorf("owner's preview does not match %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, password) {
		t.Errorf("a preview shows the generated password:\n%s", out)
	}

	// Stored: revision 2. The Automatic instances move to it, but the one whose values it
	// breaks; the Manual one stays on revision 1.
	mustKubectl(t, "admin", next, "apply", "-n", ns, "-f", "-")
	if out := mustKubectl(t, "owner", "", "get", "templaterevisions", "-n", ns, "-l", "templates.stencil.dev/template=app", "-o", "name"); strings.Fields(out)[1] != "templaterevision.templates.stencil.dev/app-2" {
		t.Fatalf("revisions after the edit:\n%s", out)
	}
	waitInstance(t, ns, "a-default", time.Minute, "Ready on revision 2", onRevision(2))
	waitInstance(t, ns, "b-explicit", time.Minute, "Ready on revision 2", onRevision(2))
	waitInstance(t, ns, "c-three", time.Minute, "still on revision 1, failing", func(ti *templatesv1.TemplateInstance) error {
		c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceRevisionReconciled)
		if ti.Status.TemplateRevision == nil || ti.Status.TemplateRevision.Number != 1 || c == nil || c.Status != metav1.ConditionFalse || c.Reason != "ProcessingFailed" {
			return fmt.Errorf("revision %+v, RevisionReconciled %+v", ti.Status.TemplateRevision, c)
		}
		return nil
	})
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "a-default-config", metav1.GetOptions{}); err != nil || cm.Data["k"] != "two" {
		t.Errorf("a-default's ConfigMap after the move: %v %v", cm.Data, err)
	}
	// Live, going back to revision 1 (an undo), compared with the cluster through a dry-run
	// as each requester: a-default's ConfigMap would change back; the others match it.
	out = mustKubectl(t, "owner", "", "stencil", "diff", "--template", "app", "-n", ns, "--revision", "1", "--live")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^a-default +Changed +2 +1 changed$`),
		regexp.MustCompile(`(?m)^b-explicit +Unchanged +2 *$`),
		regexp.MustCompile(`(?m)^c-three +Unchanged +1 *$`),
		regexp.MustCompile(`~ \.data\.k: "two" -> "one"`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the live preview of revision 1 does not match %s:\n%s", want, out)
		}
	}

	// The Manual instance never moves: a resync and a relabel of it later, still revision 1.
	mustKubectl(t, "owner", "", "label", "templateinstance", "m-manual", "-n", ns, "seen=yes")
	time.Sleep(3 * time.Second)
	m := waitInstance(t, ns, "m-manual", time.Minute, "Ready on revision 1", onRevision(1))
	if c := meta.FindStatusCondition(m.Status.Conditions, templatesv1.TemplateInstanceRevisionReconciled); c == nil ||
		!strings.Contains(c.Message, "runs revision 1 of Template app (Manual); the Template is at revision 2") {
		t.Errorf("the Manual instance's RevisionReconciled: %+v", c)
	}
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "m-manual-config", metav1.GetOptions{}); err != nil || cm.Data["k"] != "one" {
		t.Errorf("the Manual instance's ConfigMap moved: %v %v", cm.Data, err)
	}
}
