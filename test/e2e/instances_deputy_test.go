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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// The namespaces of TestTemplateInstanceConfusedDeputy: mallory has edit in deputyNS only;
// the admin's instance there also manages a ConfigMap in deputyOtherNS and a ClusterRole.
const (
	deputyNS      = "e2e-deputy"
	deputyOtherNS = "e2e-deputy-other"
	// escalation is the ClusterRoleBinding that would make mallory cluster-admin.
	escalation = "e2e-deputy-mallory-is-admin"
)

// deputyTemplate is the admin's Template: a ConfigMap of its own namespace, one of another
// namespace and a ClusterRole. extra is appended to its objects.
func deputyTemplate(extra string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
parameters:
- {name: NAME}
- {name: OTHER_NS, value: ` + deputyOtherNS + `}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: local}, data: {a: "1"}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: elsewhere, namespace: "${OTHER_NS}"}, data: {a: "1"}}
- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: e2e-deputy-reader}, rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]}
` + extra
}

// escalatingObject is what mallory adds to the admin's Template.
const escalatingObject = `- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRoleBinding
  metadata: {name: ` + escalation + `}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
  subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: mallory}]
`

// TestTemplateInstanceConfusedDeputy: a user who may edit a Template, or delete an instance,
// never acts through the instance with its requester's rights. Mallory, with edit in the
// namespace, adds a ClusterRoleBinding to cluster-admin to the Template an admin's instance
// renders: the instance fails naming the binding and mallory, nothing is applied, and the
// admin re-approving the instance does not lift the check; mallory's edit that would prune the
// admin's objects elsewhere fails the same way; mallory deleting the instance is a 403 naming
// the objects it would delete. The admin's own template and deletion still work. The audit
// log of kube-apiserver shows no write of the binding and no delete by the attack.
func TestTemplateInstanceConfusedDeputy(t *testing.T) {
	ctx := context.Background()
	for _, ns := range []string{deputyNS, deputyOtherNS} {
		mustKubectl(t, "admin", "", "create", "namespace", ns)
	}
	grantEdit(t, deputyNS, "mallory")
	mustKubectl(t, "admin", deputyTemplate(""), "apply", "-n", deputyNS, "-f", "-")
	mustKubectl(t, "admin", instanceYAML("shop", "app"), "apply", "-n", deputyNS, "-f", "-")
	ready := waitInstance(t, deputyNS, "shop", time.Minute, "Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	if len(ready.Status.Objects) != 3 {
		t.Fatalf("objects: %+v", ready.Status.Objects)
	}
	if out := mustKubectl(t, "admin", "", "get", "template", "app", "-n", deputyNS, "-o", "jsonpath={.author.username}"); out != "e2e-admin" {
		t.Fatalf("the Template's author: %q", out)
	}

	// 1. Mallory's edit of the Template is recorded as mallory's, and refused for the instance.
	mustKubectl(t, "mallory", deputyTemplate(escalatingObject), "apply", "-n", deputyNS, "-f", "-")
	if out := mustKubectl(t, "admin", "", "get", "template", "app", "-n", deputyNS, "-o", "jsonpath={.author.username}"); out != "mallory" {
		t.Fatalf("the Template's author after mallory's edit: %q", out)
	}
	authorForbidden := func(ti *templatesv1.TemplateInstance) error {
		if err := conditionIs(templatesv1.TemplateInstanceFailed, metav1.ConditionTrue)(ti); err != nil {
			return err
		}
		c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
		if c.Reason != "AuthorForbidden" || !strings.Contains(c.Message, "ClusterRoleBinding "+escalation+": mallory, the author of Template "+deputyNS+"/app, may not create it") {
			return fmt.Errorf("Failed: %+v", c)
		}
		return nil
	}
	waitInstance(t, deputyNS, "shop", time.Minute, "AuthorForbidden", authorForbidden)
	assertNoEscalation(t)

	// The requester changing the spec does not vouch for mallory's content.
	mustKubectl(t, "admin", instanceYAML("shop", "app")+"  labels: {approved: \"yes\"}\n", "apply", "-n", deputyNS, "-f", "-")
	reapproved := waitInstance(t, deputyNS, "shop", time.Minute, "AuthorForbidden at the new generation", authorForbidden)
	if reapproved.Generation < 2 || reapproved.Spec.Requester.Username != "e2e-admin" {
		t.Fatalf("the re-approval did not change the spec: generation %d, requester %+v", reapproved.Generation, reapproved.Spec.Requester)
	}
	assertNoEscalation(t)
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(deputyNS).Get(ctx, "local", metav1.GetOptions{}); err != nil || cm.Labels["approved"] != "" {
		t.Fatalf("the refused pass applied the ConfigMap: %v %v", err, cm.Labels)
	}

	// 2. Mallory's edit that drops the objects outside mallory's reach would prune them with
	// the admin's rights: refused too.
	withoutElsewhere := strings.Replace(strings.Replace(deputyTemplate(""),
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: elsewhere, namespace: \"${OTHER_NS}\"}, data: {a: \"1\"}}\n", "", 1),
		"- {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: e2e-deputy-reader}, rules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [get]}]}\n", "", 1)
	auditedBefore := auditedWrites(t)
	mustKubectl(t, "mallory", withoutElsewhere, "apply", "-n", deputyNS, "-f", "-")
	waitInstance(t, deputyNS, "shop", time.Minute, "prune refused", func(ti *templatesv1.TemplateInstance) error {
		c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
		if c == nil || c.Reason != "AuthorForbidden" || !strings.Contains(c.Message, "ConfigMap "+deputyOtherNS+"/elsewhere: mallory, the author of Template "+deputyNS+"/app, may not delete it") ||
			!strings.Contains(c.Message, "ClusterRole e2e-deputy-reader: mallory") {
			return fmt.Errorf("Failed: %+v", c)
		}
		return nil
	})
	assertManagedObjectsExist(t)

	// 3. Mallory deleting the admin's instance is refused at the API, naming the objects.
	out, err := env.kubectl("mallory", "", "delete", "templateinstance", "shop", "-n", deputyNS, "--wait=false")
	if err == nil || !strings.Contains(err.Error(), "Forbidden") || !strings.Contains(err.Error(), "ConfigMap "+deputyOtherNS+"/elsewhere") ||
		!strings.Contains(err.Error(), "ClusterRole e2e-deputy-reader") || strings.Contains(err.Error(), "ConfigMap "+deputyNS+"/local") {
		t.Fatalf("mallory's delete: %v %s", err, out)
	}
	if ti, err := stencilAdmin(t).TemplatesV1alpha1().TemplateInstances(deputyNS).Get(ctx, "shop", metav1.GetOptions{}); err != nil || ti.DeletionTimestamp != nil {
		t.Fatalf("the instance after the refused delete: %v %+v", err, ti)
	}
	// So is a delete of every instance of the namespace.
	if _, err := env.kubectl("mallory", "", "delete", "templateinstances", "--all", "-n", deputyNS, "--wait=false"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("mallory's delete --all: %v", err)
	}
	assertManagedObjectsExist(t)
	if after := auditedWrites(t); len(after) != len(auditedBefore) {
		t.Fatalf("the attacks wrote to the cluster: %v", after[len(auditedBefore):])
	}

	// The legitimate paths: the admin's own Template applies, the admin deletes its instance.
	mustKubectl(t, "admin", deputyTemplate(""), "apply", "-n", deputyNS, "-f", "-")
	waitInstance(t, deputyNS, "shop", time.Minute, "Ready with the admin's content", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	mustKubectl(t, "admin", "", "delete", "templateinstance", "shop", "-n", deputyNS, "--timeout=90s")
	if _, err := kubeAdmin(t).CoreV1().ConfigMaps(deputyOtherNS).Get(ctx, "elsewhere", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the admin's delete left the ConfigMap: %v", err)
	}
	if _, err := kubeAdmin(t).RbacV1().ClusterRoles().Get(ctx, "e2e-deputy-reader", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the admin's delete left the ClusterRole: %v", err)
	}
}

// assertNoEscalation checks that the binding does not exist, that mallory is no
// cluster-admin, and that kube-apiserver was never asked to write the binding.
func assertNoEscalation(t *testing.T) {
	t.Helper()
	if _, err := kubeAdmin(t).RbacV1().ClusterRoleBindings().Get(context.Background(), escalation, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the escalating binding exists: %v", err)
	}
	if out, _ := env.kubectl("admin", "", "auth", "can-i", "*", "*", "--as=mallory"); strings.TrimSpace(out) != "no" {
		t.Fatalf("mallory is cluster-admin: %q", out)
	}
	for _, e := range auditedWrites(t) {
		if strings.Contains(e, escalation) {
			t.Fatalf("kube-apiserver was asked to write the binding: %s", e)
		}
	}
}

// assertManagedObjectsExist checks that the admin's objects outside mallory's reach are there.
func assertManagedObjectsExist(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if cm, err := kubeAdmin(t).CoreV1().ConfigMaps(deputyOtherNS).Get(ctx, "elsewhere", metav1.GetOptions{}); err != nil || cm.DeletionTimestamp != nil {
		t.Fatalf("the ConfigMap of the other namespace: %v", err)
	}
	if cr, err := kubeAdmin(t).RbacV1().ClusterRoles().Get(ctx, "e2e-deputy-reader", metav1.GetOptions{}); err != nil || cr.DeletionTimestamp != nil {
		t.Fatalf("the ClusterRole: %v", err)
	}
}

// auditedWrites lists, from kube-apiserver's audit log, every successful write the audit
// policy records for this test (the ConfigMaps of its namespaces, ClusterRoles and
// ClusterRoleBindings), as "verb resource namespace/name by user as impersonated".
func auditedWrites(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(env.path("audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var event struct {
			Verb             string                     `json:"verb"`
			User             struct{ Username string }  `json:"user"`
			ImpersonatedUser *struct{ Username string } `json:"impersonatedUser"`
			ObjectRef        struct {
				Resource, Namespace, Name string
			} `json:"objectRef"`
			ResponseStatus struct{ Code int } `json:"responseStatus"`
			RequestURI     string             `json:"requestURI"`
		}
		if json.Unmarshal([]byte(line), &event) != nil || event.ResponseStatus.Code >= 300 || strings.Contains(event.RequestURI, "dryRun=All") {
			continue
		}
		r := event.ObjectRef
		if r.Namespace != deputyNS && r.Namespace != deputyOtherNS && r.Resource != "clusterroles" && r.Resource != "clusterrolebindings" {
			continue
		}
		if !strings.HasPrefix(r.Name, "e2e-deputy") && r.Namespace == "" {
			continue
		}
		as := ""
		if event.ImpersonatedUser != nil {
			as = " as " + event.ImpersonatedUser.Username
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s by %s%s", event.Verb, r.Resource, r.Namespace, r.Name, event.User.Username, as))
	}
	return out
}
