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
	"os"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// unchangedNS is the namespace of TestTemplateInstanceAppliesOnlyWhatChanged, whose ConfigMap
// writes the audit policy records.
const unchangedNS = "e2e-unchanged"

// sameTemplate renders one ConfigMap; description is NAME's, which no object uses.
func sameTemplate(description string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: same}
parameters:
- {name: NAME, required: true, description: "` + description + `"}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}"}, data: {k: v}}
`
}

// TestTemplateInstanceAppliesOnlyWhatChanged, through the real kube-apiserver: a revision
// that renders the same objects moves every instance to it, and the instance whose ConfigMap
// nobody touched is not applied again (kube-apiserver's audit log records no patch of it),
// while the drift the design promises to act on still is: a ConfigMap deleted by hand is
// created again, and a ConfigMap whose value was changed by hand goes through the full pass,
// whose dry-run the server refuses as a conflict with that other manager (never forced), so the
// instance says DryRunFailed instead of Ready.
func TestTemplateInstanceAppliesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	mustKubectl(t, "admin", "", "create", "namespace", unchangedNS)
	mustKubectl(t, "admin", sameTemplate("the name"), "apply", "-n", unchangedNS, "-f", "-")
	names := []string{"kept", "deleted", "edited"}
	for _, name := range names {
		mustKubectl(t, "admin", instanceYAML(name, "same"), "apply", "-n", unchangedNS, "-f", "-")
	}
	for _, name := range names {
		waitInstance(t, unchangedNS, name, time.Minute, "Ready on revision 1", onRevision(1))
	}
	// Instances seen Ready may still be queued for a last look at their objects, which would
	// apply the deleted ConfigMap again before the revision does.
	queueIdle(t, leader(t), 0, 0)
	// The applies counted start before the drift: a Ready instance's delayed look at its
	// objects (which an idle queue does not show) may create the deleted ConfigMap again
	// before the revision does. Either way it is applied once, and the others never.
	before := configMapApplies(t)
	kube := kubeAdmin(t)
	if err := kube.CoreV1().ConfigMaps(unchangedNS).Delete(ctx, "deleted", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "admin", "", "patch", "configmap", "edited", "-n", unchangedNS, "--type=merge", "-p", `{"data":{"k":"by hand"}}`)

	mustKubectl(t, "admin", sameTemplate("the name of the ConfigMap"), "apply", "-n", unchangedNS, "-f", "-")
	waitInstance(t, unchangedNS, "kept", time.Minute, "Ready on revision 2", onRevision(2))
	waitInstance(t, unchangedNS, "deleted", time.Minute, "Ready on revision 2", onRevision(2))
	edited := waitInstance(t, unchangedNS, "edited", time.Minute, "DryRunFailed", func(ti *templatesv1.TemplateInstance) error {
		if c := lastReady(ti); c.Reason != "DryRunFailed" || !strings.Contains(c.Message, "conflict") {
			return fmt.Errorf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	if r := edited.Status.TemplateRevision; r == nil || r.Number != 1 {
		t.Errorf("the instance whose apply was refused records %+v, want revision 1", r)
	}

	applied := configMapApplies(t)[len(before):]
	if want := []string{"deleted"}; strings.Join(applied, ",") != strings.Join(want, ",") {
		t.Errorf("the controller applied ConfigMaps %v after the drift, want %v (kept was not changed, edited conflicts)", applied, want)
	}
	cm, err := kube.CoreV1().ConfigMaps(unchangedNS).Get(ctx, "deleted", metav1.GetOptions{})
	if err != nil || cm.Data["k"] != "v" {
		t.Errorf("the ConfigMap deleted by hand: %v %v", cm.Data, err)
	}
	if cm, err := kube.CoreV1().ConfigMaps(unchangedNS).Get(ctx, "edited", metav1.GetOptions{}); err != nil || cm.Data["k"] != "by hand" {
		t.Errorf("the ConfigMap edited by hand was forced: %v %v", cm.Data, err)
	}
	if _, err := kube.CoreV1().ConfigMaps(unchangedNS).Get(ctx, "kept", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		t.Errorf("the untouched ConfigMap is gone")
	}
}

func lastReady(ti *templatesv1.TemplateInstance) metav1.Condition {
	for _, c := range ti.Status.Conditions {
		if c.Type == templatesv1.TemplateInstanceReady {
			return c
		}
	}
	return metav1.Condition{}
}

// configMapApplies lists, in order, the ConfigMaps of unchangedNS that the controller applied
// for real (a server-side apply as the requester, dry-runs left out), as kube-apiserver's
// audit log records them, whether the apply succeeded or conflicted.
func configMapApplies(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(env.path("audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var event struct {
			Verb             string                     `json:"verb"`
			ImpersonatedUser *struct{ Username string } `json:"impersonatedUser"`
			ObjectRef        struct {
				Resource, Namespace, Name string
			} `json:"objectRef"`
			RequestURI string `json:"requestURI"`
		}
		if json.Unmarshal([]byte(line), &event) != nil || event.ObjectRef.Namespace != unchangedNS || event.ObjectRef.Resource != "configmaps" ||
			event.Verb != "patch" || event.ImpersonatedUser == nil || strings.Contains(event.RequestURI, "dryRun=All") {
			continue
		}
		out = append(out, event.ObjectRef.Name)
	}
	return out
}
