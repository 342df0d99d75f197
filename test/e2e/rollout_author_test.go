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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// authoredTemplate is Template app: a ConfigMap holding value, rolled out one instance at a
// time, paused when paused.
func authoredTemplate(value string, paused bool) string {
	return fmt.Sprintf(`apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
rollout: {waves: [1], timeout: 30s, paused: %t}
parameters:
- {name: NAME, required: true}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {k: "%s"}}
`, paused, value)
}

// refusedFor waits until the instance's last pass was refused because user may not write what
// it would apply.
func refusedFor(user string) func(*templatesv1.TemplateInstance) error {
	return func(ti *templatesv1.TemplateInstance) error {
		c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != "AuthorForbidden" || !strings.Contains(c.Message, user+", the author of") {
			return fmt.Errorf("conditions %+v", ti.Status.Conditions)
		}
		return nil
	}
}

// TestRolloutChangesAreAuthored (hostile), through the real kube-apiserver with token users:
// pauser may write Templates and nothing else. Whoever chooses what or when instances apply
// acts only with their own rights too: an undo pauser writes makes pauser the author of the
// content written back, and a resume of admin's paused rollout makes pauser the rollout's
// author, so neither moves an instance to anything pauser may not write itself (before, the
// resume moved admin's instance to admin's paused revision: a ConfigMap changed by a user who
// may change none). The identity is the server's record of who wrote the rollout
// (rolloutAuthor), never the client's.
func TestRolloutChangesAreAuthored(t *testing.T) {
	ctx := context.Background()
	ns := "e2e-rollout-author"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	for _, role := range []string{"stencil-edit", "stencil-view", "stencil-process", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "pauser-"+role, "-n", ns, "--clusterrole="+role, "--user=pauser")
	}
	if out, err := env.kubectl("pauser", "", "auth", "can-i", "patch", "configmaps", "-n", ns); err == nil || strings.TrimSpace(out) != "no" {
		t.Fatalf("pauser may patch ConfigMaps: %v %q", err, out)
	}
	config := func(name string) string {
		cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, name+"-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Data["k"]
	}

	mustKubectl(t, "admin", authoredTemplate("one", false), "apply", "-n", ns, "-f", "-")
	for _, name := range []string{"a", "b"} {
		mustKubectl(t, "admin", fmt.Sprintf("apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateInstance\nmetadata: {name: %s}\n"+
			"spec: {templateRef: {name: app}, parameters: {NAME: %s}}\n", name, name), "apply", "-n", ns, "-f", "-")
	}
	mustKubectl(t, "admin", authoredTemplate("two", false), "apply", "-n", ns, "-f", "-")
	for _, name := range []string{"a", "b"} {
		waitInstance(t, ns, name, 2*time.Minute, "Ready on revision 2", onRevision(2))
	}

	// An undo written by pauser: pauser is the author of revision 3 (revision 1's content).
	mustKubectl(t, "pauser", "", "stencil", "rollout", "undo", "app", "-n", ns)
	for _, name := range []string{"a", "b"} {
		waitInstance(t, ns, name, time.Minute, "refused: pauser wrote the undo", refusedFor("pauser"))
		if got := config(name); got != "two" {
			t.Errorf("after pauser's undo, %s's ConfigMap holds %q", name, got)
		}
	}

	// admin writes revision 4 and pauses its rollout in the same write: nobody moves.
	mustKubectl(t, "admin", authoredTemplate("four", true), "apply", "-n", ns, "-f", "-")
	waitRollout(t, ns, "revision 4 paused by its author", func(st *templatesv1.RolloutStatus) error {
		if st.Revision != 4 || st.Phase != templatesv1.RolloutPaused || st.Reason != "PausedByUser" {
			return fmt.Errorf("%+v", st)
		}
		return nil
	})
	tpl, err := stencilAdmin(t).TemplatesV1alpha1().Templates(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil || tpl.RolloutAuthor == nil || tpl.RolloutAuthor.Username != "e2e-admin" || tpl.Author.Username != "e2e-admin" {
		t.Fatalf("revision 4's authors: %v %+v %+v", err, tpl.Author, tpl.RolloutAuthor)
	}

	// pauser resumes admin's paused rollout: pauser is now the rollout's author, and admin's
	// revision 4 reaches no instance pauser could not have written.
	mustKubectl(t, "pauser", "", "stencil", "rollout", "resume", "app", "-n", ns)
	tpl, err = stencilAdmin(t).TemplatesV1alpha1().Templates(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil || tpl.RolloutAuthor == nil || tpl.RolloutAuthor.Username != "pauser" || tpl.Author.Username != "e2e-admin" {
		t.Fatalf("after pauser's resume: %v author %+v, rollout author %+v", err, tpl.Author, tpl.RolloutAuthor)
	}
	waitInstance(t, ns, "a", time.Minute, "refused: pauser resumed the rollout", func(ti *templatesv1.TemplateInstance) error {
		if err := refusedFor("pauser")(ti); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed); !strings.Contains(c.Message, "Template "+ns+"/app's rollout") {
			return fmt.Errorf("the refusal does not name the rollout: %s", c.Message)
		}
		return nil
	})
	time.Sleep(3 * time.Second)
	for _, name := range []string{"a", "b"} {
		if got := config(name); got != "two" {
			t.Errorf("after pauser's resume, %s's ConfigMap holds %q: admin's paused revision reached it", name, got)
		}
	}
	// A client's value is never the record: pauser cannot name admin as the rollout's author.
	forged := `{"rolloutAuthor":{"username":"e2e-admin","groups":["system:masters"]},"rollout":{"waves":[1],"timeout":"30s","paused":false}}`
	mustKubectl(t, "pauser", "", "patch", "template", "app", "-n", ns, "--type=merge", "-p", forged)
	if tpl, err = stencilAdmin(t).TemplatesV1alpha1().Templates(ns).Get(ctx, "app", metav1.GetOptions{}); err != nil || tpl.RolloutAuthor.Username != "pauser" {
		t.Errorf("after a forged rolloutAuthor: %v %+v", err, tpl.RolloutAuthor)
	}

	// admin pauses and resumes: admin's rollout again, and revision 4 rolls out.
	mustKubectl(t, "admin", "", "stencil", "rollout", "pause", "app", "-n", ns)
	mustKubectl(t, "admin", "", "stencil", "rollout", "resume", "app", "-n", ns)
	for _, name := range []string{"a", "b"} {
		waitInstance(t, ns, name, 2*time.Minute, "Ready on revision 4", onRevision(4))
		if got := config(name); got != "four" {
			t.Errorf("after admin's resume, %s's ConfigMap holds %q", name, got)
		}
	}
}

// TestUndoByAnotherReadsNoInputs (hostile, #37's "an undo written by someone else"), through
// the real kube-apiserver with token users: admin's revision 1 wrote the instance's Secret
// value into a ConfigMap, and revision 2 took it out. pauser, who may write Templates and
// ConfigMaps but not read Secrets, undoes to revision 1: the undo makes pauser the author of
// the content written back, so the instance reads its Secret only if pauser may read it too:
// it stops (InputForbidden, naming pauser and the Secret) and the ConfigMap pauser may read
// never gets the value back. An undo is a write of content like any other. Nor does pauser's
// resume of admin's paused rollout of that content: the rollout's author must read the inputs
// too (before, only that it may create the objects was asked).
func TestUndoByAnotherReadsNoInputs(t *testing.T) {
	ctx := context.Background()
	ns := "e2e-undo-inputs"
	const password = "UNDO-SECRET-77aa"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	for _, role := range []string{"stencil-edit", "stencil-view", "stencil-process", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "pauser-"+role, "-n", ns, "--clusterrole="+role, "--user=pauser")
	}
	mustKubectl(t, "admin", "", "create", "role", "configmap-editor", "-n", ns, "--verb=get,list,create,update,patch,delete", "--resource=configmaps")
	mustKubectl(t, "admin", "", "create", "rolebinding", "pauser-configmaps", "-n", ns, "--role=configmap-editor", "--user=pauser")
	if out, err := env.kubectl("pauser", "", "auth", "can-i", "get", "secrets", "-n", ns); err == nil || strings.TrimSpace(out) != "no" {
		t.Fatalf("pauser may get Secrets: %v %q", err, out)
	}
	mustKubectl(t, "admin", "", "create", "secret", "generic", "db", "-n", ns, "--from-literal=DB_PASSWORD="+password)
	template := func(value string, rollout ...string) string {
		return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
` + strings.Join(rollout, "") + `parameters: [{name: NAME}, {name: DB_PASSWORD, secret: true}]
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {pw: "` + value + `"}}
`
	}
	config := func() string {
		cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "shop-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Data["pw"]
	}
	mustKubectl(t, "admin", template("${DB_PASSWORD}"), "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", "apiVersion: templates.stencil.dev/v1alpha1\nkind: TemplateInstance\nmetadata: {name: shop}\n"+
		"spec: {templateRef: {name: app}, parameters: {NAME: shop}, parametersFrom: [{secretRef: {name: db}}]}\n", "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", 2*time.Minute, "Ready on revision 1", onRevision(1))
	mustKubectl(t, "admin", template("taken out"), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", 2*time.Minute, "Ready on revision 2", onRevision(2))
	if got := config(); got != "taken out" {
		t.Fatalf("revision 2's ConfigMap holds %q", got)
	}

	mustKubectl(t, "pauser", "", "stencil", "rollout", "undo", "app", "-n", ns)
	tpl, err := stencilAdmin(t).TemplatesV1alpha1().Templates(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil || tpl.Revision == nil || tpl.Revision.Number != 3 || tpl.Author == nil || tpl.Author.Username != "pauser" {
		t.Fatalf("after pauser's undo: %v revision %+v author %+v", err, tpl.Revision, tpl.Author)
	}
	waitInstance(t, ns, "shop", time.Minute, "InputForbidden: pauser wrote the undo",
		failedWith("InputForbidden", "pauser, the author of Templates "+ns+"/app, "+ns+"/app's rollout, may not get Secret "+ns+"/db"))
	if got := config(); got != "taken out" {
		t.Errorf("after pauser's undo, the ConfigMap pauser reads holds %q", got)
	}

	// admin writes the leak again, paused for review: the instance stays on revision 2. pauser
	// resumes it: pauser is the rollout's author, who chose that it moves now, and may not read
	// what it reads: the instance stops, the value stays out of the ConfigMap.
	mustKubectl(t, "admin", template("leak:${DB_PASSWORD}", "rollout: {waves: [1], timeout: 30s, paused: true}\n"), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "Ready on revision 2 while revision 4 is paused", onRevision(2))
	mustKubectl(t, "pauser", "", "stencil", "rollout", "resume", "app", "-n", ns)
	waitInstance(t, ns, "shop", time.Minute, "InputForbidden: pauser resumed the rollout",
		failedWith("InputForbidden", "pauser, the author of Template "+ns+"/app's rollout, may not get Secret "+ns+"/db"))
	time.Sleep(2 * time.Second)
	if got := config(); got != "taken out" {
		t.Errorf("after pauser's resume, the ConfigMap pauser reads holds %q", got)
	}
	out := mustKubectl(t, "pauser", "", "get", "templateinstance", "shop", "-n", ns, "-o", "yaml")
	if strings.Contains(out, password) {
		t.Errorf("the instance shows pauser the password:\n%s", out)
	}
}
