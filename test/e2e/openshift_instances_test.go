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
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates/openshift"
)

// openshiftInstanceJSON is an OpenShift TemplateInstance of the shared mysql-persistent
// template, as written, with its values in Secret secret.
func openshiftInstanceJSON(t *testing.T, name, secret string) string {
	t.Helper()
	template, err := os.ReadFile(filepath.Join(repoRoot, "pkg", "process", "testdata", "mysql-persistent.json"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"apiVersion":"template.openshift.io/v1","kind":"TemplateInstance","metadata":{"name":%q},
"spec":{"secret":{"name":%q},"template":%s}}`, name, secret, template)
}

// openshiftInstance reads an instance through template.openshift.io as user.
func openshiftInstance(user, ns, name string) (*openshift.TemplateInstance, error) {
	out, err := env.kubectl(user, "", "get", "templateinstances.template.openshift.io", name, "-n", ns, "-o", "json")
	if err != nil {
		return nil, err
	}
	var ti openshift.TemplateInstance
	return &ti, json.Unmarshal([]byte(out), &ti)
}

// waitOpenShiftCondition waits until the instance's OpenShift condition is True.
func waitOpenShiftCondition(t *testing.T, user, ns, name string, condition openshift.TemplateInstanceConditionType) *openshift.TemplateInstance {
	t.Helper()
	var last *openshift.TemplateInstance
	if err := waitFor(time.Minute, fmt.Sprintf("%s %s", name, condition), func(context.Context) error {
		ti, err := openshiftInstance(user, ns, name)
		if err != nil {
			return err
		}
		last = ti
		for _, c := range ti.Status.Conditions {
			if c.Type == condition && c.Status == metav1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", ti.Status.Conditions)
	}); err != nil {
		t.Fatalf("%v\nlast seen: %+v", err, last)
	}
	return last
}

// testOpenShiftTemplateInstances runs OpenShift's TemplateInstance through the real
// kube-apiserver, as token users, once TestOpenShiftTemplates serves the group: the objects
// are created as the requester, the status reads as OpenShift's, a user lacking a right gets
// InstantiateFailure and nothing, and kubectl delete uninstalls.
func testOpenShiftTemplateInstances(t *testing.T) {
	ctx := context.Background()
	const ns = "openshift-compat-instances"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	grantEdit(t, ns, "editor")
	for _, user := range []string{"editor", "limited"} {
		for _, role := range []string{"stencil-openshift-templates-view", "stencil-openshift-templates-edit"} {
			mustKubectl(t, "admin", "", "create", "rolebinding", user+"-"+role, "-n", ns, "--clusterrole="+role, "--user="+user)
		}
	}

	mustKubectl(t, "editor", "", "create", "secret", "generic", "mysql-values", "-n", ns,
		"--from-literal=MYSQL_USER=u", "--from-literal=MYSQL_PASSWORD=p", "--from-literal=MYSQL_ROOT_PASSWORD=r")
	mustKubectl(t, "editor", openshiftInstanceJSON(t, "mysql", "mysql-values"), "create", "-n", ns, "-f", "-")
	table := mustKubectl(t, "editor", "", "get", "templateinstances.template.openshift.io", "-n", ns)
	if lines := strings.Split(table, "\n"); len(lines) < 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME TEMPLATE" ||
		strings.Join(strings.Fields(lines[1]), " ") != "mysql mysql-persistent" {
		t.Errorf("oc get templateinstances' columns:\n%s", table)
	}
	explainEventually(t, "editor", "templateinstances.template.openshift.io.spec", "secret")

	// The Deployment and the claim get ready as their controllers would say.
	kube := kubeAdmin(t)
	if err := waitFor(time.Minute, "the Deployment", func(ctx context.Context) error {
		_, err := kube.AppsV1().Deployments(ns).Get(ctx, "mysql", metav1.GetOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	markDeploymentAvailable(t, ns, "mysql")
	mustKubectl(t, "admin", "", "patch", "pvc", "mysql", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Bound"}}`)
	ti := waitOpenShiftCondition(t, "editor", ns, "mysql", openshift.TemplateInstanceReady)
	var kinds []string
	for _, o := range ti.Status.Objects {
		kinds = append(kinds, o.Ref.Kind)
		if o.Ref.UID == "" || o.Ref.Name != "mysql" || o.Ref.Namespace != ns {
			t.Errorf("object ref %+v", o.Ref)
		}
	}
	if strings.Join(kinds, ",") != "Secret,Service,PersistentVolumeClaim,Deployment" || ti.Spec.Requester == nil || ti.Spec.Requester.Username != "editor" {
		t.Errorf("status objects %v, requester %+v", kinds, ti.Spec.Requester)
	}
	secret, err := kube.CoreV1().Secrets(ns).Get(ctx, "mysql", metav1.GetOptions{})
	if err != nil || string(secret.Data["database-user"]) != "u" {
		t.Errorf("the values of spec.secret did not reach the objects: %v %v", err, secret)
	}
	// Created as the editor: the controller's ServiceAccount, impersonating the editor.
	if err := waitFor(10*time.Second, "the audit event of the Secret's creation", func(context.Context) error {
		return auditedAs(ns, "mysql", "system:serviceaccount:stencil-system:stencil-apiserver", "editor")
	}); err != nil {
		t.Error(err)
	}

	// A user who may not create Secrets: InstantiateFailure names the Secret, nothing is made.
	mustKubectl(t, "admin", "", "create", "role", "no-secrets", "-n", ns, "--verb=get,list,watch,create,update,patch,delete",
		"--resource=configmaps,services,persistentvolumeclaims,deployments.apps")
	for _, role := range []string{"role=no-secrets", "clusterrole=stencil-process"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "limited-"+strings.SplitN(role, "=", 2)[1], "-n", ns, "--"+role, "--user=limited")
	}
	mustKubectl(t, "admin", "", "create", "secret", "generic", "limited-values", "-n", ns, "--from-literal=DATABASE_SERVICE_NAME=limited",
		"--from-literal=MYSQL_USER=u", "--from-literal=MYSQL_PASSWORD=p", "--from-literal=MYSQL_ROOT_PASSWORD=r")
	mustKubectl(t, "limited", openshiftInstanceJSON(t, "limited", "limited-values"), "create", "-n", ns, "-f", "-")
	failed := waitOpenShiftCondition(t, "limited", ns, "limited", openshift.TemplateInstanceInstantiateFailure)
	for _, c := range failed.Status.Conditions {
		if c.Type == openshift.TemplateInstanceInstantiateFailure && !strings.Contains(c.Message, "Secret "+ns+"/limited") {
			t.Errorf("InstantiateFailure does not name the Secret: %+v", c)
		}
	}
	if _, err := kube.CoreV1().Services(ns).Get(ctx, "limited", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("an object of a refused instance exists: %v", err)
	}
	mustKubectl(t, "limited", "", "delete", "templateinstances.template.openshift.io", "limited", "-n", ns, "--timeout=60s")

	// kubectl delete uninstalls. No kube-controller-manager runs to release the claim, so the
	// test lifts its protection finalizer once the claim is being deleted.
	mustKubectl(t, "editor", "", "delete", "templateinstances.template.openshift.io", "mysql", "-n", ns, "--wait=false")
	if err := waitFor(time.Minute, "the claim being deleted", func(ctx context.Context) error {
		pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "mysql", metav1.GetOptions{})
		if err == nil && pvc.DeletionTimestamp == nil {
			return fmt.Errorf("not yet")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, _ = env.kubectl("admin", "", "patch", "pvc", "mysql", "-n", ns, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	if err := waitFor(time.Minute, "the instance and its objects gone", func(ctx context.Context) error {
		if _, err := openshiftInstance("editor", ns, "mysql"); err == nil {
			return fmt.Errorf("the instance is still there")
		}
		if _, err := kube.AppsV1().Deployments(ns).Get(ctx, "mysql", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the Deployment is still there: %v", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
