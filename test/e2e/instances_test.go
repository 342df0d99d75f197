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
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// appTemplate renders a ConfigMap, a Secret holding a generated password and a Deployment.
const appTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: app}
parameters:
- {name: NAME, required: true}
- {name: PASSWORD, generate: expression, from: "[a-z0-9]{24}"}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}-config"}, data: {greeting: hello}}
- {apiVersion: v1, kind: Secret, metadata: {name: "${NAME}-credentials"}, stringData: {password: "${PASSWORD}"}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: "${NAME}"}
  spec:
    replicas: 1
    selector: {matchLabels: {app: "${NAME}"}}
    template:
      metadata: {labels: {app: "${NAME}"}}
      spec: {containers: [{name: app, image: registry.example/app:1}]}
`

func instanceYAML(name, template string) string {
	return fmt.Sprintf(`apiVersion: templates.stencil.dev/v1alpha1
kind: TemplateInstance
metadata: {name: %s}
spec:
  templateRef: {name: %s}
  parameters: {NAME: %s}
`, name, template, name)
}

func kubeAdmin(t testing.TB) kubernetes.Interface {
	cs, err := kubernetes.NewForConfig(env.restConfig("admin"))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func stencilAdmin(t testing.TB) clientset.Interface {
	cs, err := clientset.NewForConfig(env.restConfig("admin"))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// waitInstance polls the instance until check accepts it.
func waitInstance(t *testing.T, ns, name string, timeout time.Duration, what string, check func(*templatesv1.TemplateInstance) error) *templatesv1.TemplateInstance {
	t.Helper()
	cs := stencilAdmin(t)
	var last *templatesv1.TemplateInstance
	err := waitFor(timeout, what, func(ctx context.Context) error {
		ti, err := cs.TemplatesV1alpha1().TemplateInstances(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		last = ti
		return check(ti)
	})
	if err != nil {
		t.Fatalf("%v\nlast seen: %+v", err, last)
	}
	return last
}

func conditionIs(conditionType string, status metav1.ConditionStatus) func(*templatesv1.TemplateInstance) error {
	return func(ti *templatesv1.TemplateInstance) error {
		c := meta.FindStatusCondition(ti.Status.Conditions, conditionType)
		if c == nil || c.Status != status || c.ObservedGeneration != ti.Generation {
			return fmt.Errorf("%s is not %s: %+v", conditionType, status, c)
		}
		return nil
	}
}

// grantEdit gives user in ns what the cluster's edit role aggregates. The suite runs no
// kube-controller-manager, whose aggregation controller fills edit in, so the roles that
// edit aggregates are bound one by one.
func grantEdit(t *testing.T, ns, user string) {
	for _, role := range []string{"system:aggregate-to-edit", "system:aggregate-to-view", "stencil-edit", "stencil-process", "stencil-view", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", user+"-"+strings.ReplaceAll(role, ":", "-"), "-n", ns, "--clusterrole="+role, "--user="+user)
	}
}

func generatedPassword(t *testing.T, ns, instance string) string {
	t.Helper()
	s, err := kubeAdmin(t).CoreV1().Secrets(ns).Get(context.Background(), instance+"-generated", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(s.Data["PASSWORD"])
}

// markDeploymentAvailable writes what the deployment controller would once the pods run: the
// suite has no controller-manager or kubelet.
func markDeploymentAvailable(t *testing.T, ns, name string) {
	t.Helper()
	d, err := kubeAdmin(t).AppsV1().Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch := fmt.Sprintf(`{"status":{"observedGeneration":%d,"replicas":1,"updatedReplicas":1,"readyReplicas":1,"availableReplicas":1,
	  "conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"e2e"},
	                {"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable","message":"e2e"}]}}`, d.Generation)
	mustKubectl(t, "admin", "", "patch", "deployment", name, "-n", ns, "--subresource=status", "--type=merge", "-p", patch)
}

// TestTemplateInstanceLifecycle: a user with edit instantiates a stored template through
// kubectl; the objects are created as that user and managed by the instance; readiness
// follows the Deployment's status; an upgrade that drops an object prunes it and keeps the
// generated password; a rotation request changes it; deleting the instance removes everything.
func TestTemplateInstanceLifecycle(t *testing.T) {
	ctx := context.Background()
	ns := "e2e-instances"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	grantEdit(t, ns, "editor")
	mustKubectl(t, "admin", appTemplate, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "editor", instanceYAML("shop", "app"), "apply", "-n", ns, "-f", "-")

	ti := waitInstance(t, ns, "shop", time.Minute, "objects applied, Deployment not ready", func(ti *templatesv1.TemplateInstance) error {
		if err := conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionFalse)(ti); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady); c.Reason != "NotReady" || !strings.Contains(c.Message, "Deployment "+ns+"/shop") {
			return fmt.Errorf("Ready: %+v", c)
		}
		return nil
	})
	if ti.Spec.Requester == nil || ti.Spec.Requester.Username != "editor" {
		t.Fatalf("requester: %+v", ti.Spec.Requester)
	}
	var kinds []string
	for _, o := range ti.Status.Objects {
		kinds = append(kinds, o.Kind)
		if o.UID == "" {
			t.Errorf("no uid recorded for %+v", o)
		}
	}
	if strings.Join(kinds, ",") != "ConfigMap,Secret,Deployment" || ti.Status.GeneratedParametersSecret != "shop-generated" {
		t.Fatalf("status: %+v", ti.Status)
	}

	// Created as the editor: the controller's ServiceAccount may not create ConfigMaps here,
	// so only the impersonated editor could have.
	const sa = "system:serviceaccount:stencil-system:stencil-apiserver"
	if out, _ := env.kubectl("admin", "", "auth", "can-i", "create", "configmaps", "-n", ns, "--as="+sa); strings.TrimSpace(out) != "no" {
		t.Fatalf("the controller's ServiceAccount may create ConfigMaps itself: %q", out)
	}
	cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "shop-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Labels["applyset.kubernetes.io/part-of"] == "" || len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "stencil.dev/templateinstance" {
		t.Fatalf("ConfigMap not managed by the instance: labels %v, managed fields %+v", cm.Labels, cm.ManagedFields)
	}
	// And the audit log says so: the ServiceAccount, impersonating the editor, applied it.
	if err := waitFor(10*time.Second, "the audit event of the ConfigMap's creation", func(context.Context) error {
		return auditedAs(ns, "shop-config", "system:serviceaccount:stencil-system:stencil-apiserver", "editor")
	}); err != nil {
		t.Fatal(err)
	}
	password := generatedPassword(t, ns, "shop")
	if len(password) != 24 {
		t.Fatalf("generated password %q", password)
	}

	markDeploymentAvailable(t, ns, "shop")
	waitInstance(t, ns, "shop", time.Minute, "Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	out := mustKubectl(t, "editor", "", "get", "templateinstances", "-n", ns)
	if fields := strings.Fields(strings.Split(out, "\n")[1]); len(fields) < 4 || fields[1] != "app" || fields[2] != "True" || fields[3] != "3/3" {
		t.Fatalf("kubectl get templateinstances: %s", out)
	}

	// stencil diff, as the kubectl plugin: the live instance is as applied; an instance file
	// with a label changes the ConfigMap and would be refused for the Deployment (labels go
	// into its immutable selector); the template without its ConfigMap would prune it.
	if out := mustKubectl(t, "editor", "", "stencil", "diff", "shop", "-n", ns); !strings.Contains(out, "unchanged: 3 objects") || strings.Contains(out, "  changed:") {
		t.Fatalf("diff of the live instance:\n%s", out)
	}
	labelled := instanceYAML("shop", "app") + "  labels: {tier: web}\n"
	if out := mustKubectl(t, "editor", labelled, "stencil", "diff", "-n", ns, "-f", "-"); !strings.Contains(out, "changed: ConfigMap "+ns+"/shop-config") ||
		!strings.Contains(out, "+     tier: web") || !strings.Contains(out, "refused: Deployment "+ns+"/shop: ") || !strings.Contains(out, "field is immutable") {
		t.Fatalf("diff of an instance file:\n%s", out)
	}
	withoutConfigMap := strings.Replace(appTemplate, "- {apiVersion: v1, kind: ConfigMap, metadata: {name: \"${NAME}-config\"}, data: {greeting: hello}}\n", "", 1)
	if out := mustKubectl(t, "editor", withoutConfigMap, "stencil", "diff", "--template", "app", "-n", ns, "-f", "-"); !strings.Contains(out, "removed: ConfigMap "+ns+"/shop-config") ||
		!regexp.MustCompile(`(?m)^shop +WouldPrune +1 +1 removed$`).MatchString(out) {
		t.Fatalf("diff of a template change:\n%s", out)
	}

	// Upgrade: the template drops the ConfigMap.
	mustKubectl(t, "admin", withoutConfigMap, "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "shop", time.Minute, "ConfigMap pruned", func(ti *templatesv1.TemplateInstance) error {
		if len(ti.Status.Objects) != 2 {
			return fmt.Errorf("objects: %+v", ti.Status.Objects)
		}
		return conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue)(ti)
	})
	if _, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "shop-config", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the dropped ConfigMap is still there: %v", err)
	}
	if got := generatedPassword(t, ns, "shop"); got != password {
		t.Fatalf("the upgrade changed the generated password: %q -> %q", password, got)
	}

	// Rotation: a new password, stored and applied, and the request removed.
	mustKubectl(t, "editor", "", "annotate", "templateinstance", "shop", "-n", ns, templatesv1.AnnotationRotateGeneratedParameters+"=PASSWORD")
	waitInstance(t, ns, "shop", time.Minute, "rotation done", func(ti *templatesv1.TemplateInstance) error {
		if _, ok := ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters]; ok {
			return fmt.Errorf("rotation still asked for")
		}
		return nil
	})
	rotated := generatedPassword(t, ns, "shop")
	if rotated == password || len(rotated) != 24 {
		t.Fatalf("rotation: %q -> %q", password, rotated)
	}
	app, err := kubeAdmin(t).CoreV1().Secrets(ns).Get(ctx, "shop-credentials", metav1.GetOptions{})
	if err != nil || string(app.Data["password"]) != rotated {
		t.Fatalf("the application's Secret does not hold the rotated password: %v", err)
	}

	// Uninstall: kubectl delete waits for the finalizer, which waits for the objects.
	mustKubectl(t, "editor", "", "delete", "templateinstance", "shop", "-n", ns, "--timeout=90s")
	for _, check := range []func() error{
		func() error {
			_, err := kubeAdmin(t).AppsV1().Deployments(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err
		},
		func() error {
			_, err := kubeAdmin(t).CoreV1().Secrets(ns).Get(ctx, "shop-credentials", metav1.GetOptions{})
			return err
		},
		func() error {
			_, err := kubeAdmin(t).CoreV1().Secrets(ns).Get(ctx, "shop-generated", metav1.GetOptions{})
			return err
		},
	} {
		if err := check(); !apierrors.IsNotFound(err) {
			t.Errorf("an object of the deleted instance remains: %v", err)
		}
	}
}

// TestTemplateInstanceForbidden: a user who may write ConfigMaps and Deployments but no
// Secret gets Failed naming the Secret, and none of the instance's objects is created.
func TestTemplateInstanceForbidden(t *testing.T) {
	ns := "e2e-instances-forbidden"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", appTemplate, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", "", "create", "role", "no-secrets", "-n", ns, "--verb=get,list,watch,create,update,patch,delete",
		"--resource=configmaps,deployments.apps")
	mustKubectl(t, "admin", "", "create", "rolebinding", "limited-no-secrets", "-n", ns, "--role=no-secrets", "--user=limited")
	for _, role := range []string{"stencil-edit", "stencil-process", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "limited-"+role, "-n", ns, "--clusterrole="+role, "--user=limited")
	}
	mustKubectl(t, "limited", instanceYAML("shop", "app"), "apply", "-n", ns, "-f", "-")
	ti := waitInstance(t, ns, "shop", time.Minute, "Failed", conditionIs(templatesv1.TemplateInstanceFailed, metav1.ConditionTrue))
	failed := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed)
	if failed.Reason != "Forbidden" || !strings.Contains(failed.Message, "Secret "+ns+"/shop-") {
		t.Fatalf("Failed does not name the Secret: %+v", failed)
	}
	ctx := context.Background()
	cms, _ := kubeAdmin(t).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: "applyset.kubernetes.io/part-of"})
	deployments, _ := kubeAdmin(t).AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	secrets, _ := kubeAdmin(t).CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	if len(cms.Items)+len(deployments.Items)+len(secrets.Items) != 0 {
		t.Fatalf("objects of a refused instance exist: %d ConfigMaps, %d Deployments, %d Secrets", len(cms.Items), len(deployments.Items), len(secrets.Items))
	}
	// Deleting a failed instance works: there is nothing to delete.
	mustKubectl(t, "limited", "", "delete", "templateinstance", "shop", "-n", ns, "--timeout=60s")
}

// auditedAs finds the audit event of the server-side apply that created ConfigMap (or Secret)
// ns/name and checks who made it, impersonating whom ("" for nobody).
func auditedAs(ns, name, user, impersonated string) error {
	data, err := os.ReadFile(env.path("audit.log"))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(data), "\n") {
		var event struct {
			Verb             string                           `json:"verb"`
			User             struct{ Username string }        `json:"user"`
			ImpersonatedUser *struct{ Username string }       `json:"impersonatedUser"`
			ObjectRef        struct{ Namespace, Name string } `json:"objectRef"`
			ResponseStatus   struct{ Code int }               `json:"responseStatus"`
			Annotations      map[string]string                `json:"annotations"`
		}
		if json.Unmarshal([]byte(line), &event) != nil || event.ObjectRef.Namespace != ns || event.ObjectRef.Name != name ||
			event.Verb != "patch" || event.ResponseStatus.Code != 201 {
			continue
		}
		impersonating := ""
		if event.ImpersonatedUser != nil {
			impersonating = event.ImpersonatedUser.Username
		}
		if event.User.Username != user || impersonating != impersonated {
			return fmt.Errorf("ConfigMap %s/%s created by %q impersonating %+v", ns, name, event.User.Username, event.ImpersonatedUser)
		}
		return nil
	}
	return fmt.Errorf("no audit event of the creation of ConfigMap %s/%s", ns, name)
}
