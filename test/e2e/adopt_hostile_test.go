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
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestAdoptRefused: every adoption that must not happen is refused before anything is
// touched, through the real kube-apiserver as token users: a Template whose render changes
// an immutable field (the Deployment's selector), tampered release records (bad base64, bad
// gzip, 50 MB inflated), a user who may not edit the namespace, a user who may not patch the
// Deployment, and a Template whose author may not.
func TestAdoptRefused(t *testing.T) {
	ns := "e2e-adopt-refused"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", "", "create", "namespace", ns+"-other")
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, ns+"-other", "--wait=false") })
	grantEdit(t, ns, "adopter")
	grantEdit(t, ns+"-other", "intruder")
	// adopter-limited may create instances and adoptions, read everything the release holds
	// and write all of it but Deployments.
	mustKubectl(t, "admin", `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: no-deployments}
rules:
- apiGroups: [""]
  resources: [secrets, configmaps, services, persistentvolumeclaims]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [apps]
  resources: [deployments]
  verbs: [get, list, watch]
`, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", "", "create", "rolebinding", "limited-no-deployments", "-n", ns, "--role=no-deployments", "--user=adopter-limited")
	for _, role := range []string{"stencil-edit", "stencil-process", "stencil-view", "stencil-instance-view"} {
		mustKubectl(t, "admin", "", "create", "rolebinding", "limited-"+role, "-n", ns, "--clusterrole="+role, "--user=adopter-limited")
	}
	web, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "examples", "web.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "adopter", string(web), "apply", "-n", ns, "-f", "-")
	// The same application with an object label, which goes into the Deployment's selector.
	tiered := strings.Replace(strings.Replace(string(web), "name: web\n", "name: web-tiered\n", 1), "objects:\n", "objectLabels: {tier: web}\nobjects:\n", 1)
	mustKubectl(t, "adopter", tiered, "apply", "-n", ns, "-f", "-")
	// A Template written by adopter-limited, who may not patch Deployments.
	byLimited := strings.Replace(string(web), "name: web\n", "name: web-limited\n", 1)
	mustKubectl(t, "adopter-limited", byLimited, "apply", "-n", ns, "-f", "-")
	mustHelm(t, "adopter", ns, "install", "web", webChart)

	kube := kubeAdmin(t)
	versions := func() map[string]string {
		out := map[string]string{}
		for _, o := range releaseObjects("web") {
			out[o[0]] = getLive(t, ns, o[0], o[1]).Metadata.ResourceVersion
		}
		records, err := kube.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=web"})
		if err != nil {
			t.Fatal(err)
		}
		out["records"] = fmt.Sprint(len(records.Items))
		return out
	}
	untouched := versions()
	refused := func(t *testing.T, user string, args []string, want ...string) {
		t.Helper()
		out, err := env.kubectl(user, "", append([]string{"stencil", "adopt", "-n", ns}, args...)...)
		if err == nil {
			t.Fatalf("adopt %v was accepted:\n%s", args, out)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("adopt %v: the refusal does not say %q:\n%v", args, w, err)
			}
		}
		if got := versions(); fmt.Sprint(got) != fmt.Sprint(untouched) {
			t.Errorf("adopt %v touched the release: %v, before %v", args, got, untouched)
		}
		if list, err := stencilAdmin(t).TemplatesV1alpha1().TemplateInstances(ns).List(context.Background(), metav1.ListOptions{}); err != nil || len(list.Items) > 0 {
			t.Errorf("adopt %v created an instance: %v %v", args, list, err)
		}
	}

	t.Run("an immutable field", func(t *testing.T) {
		args := []string{"helm", "web", "--template", "web-tiered", "-p", "NAME=web"}
		plan, _ := env.kubectl("adopter", "", append([]string{"stencil", "adopt", "-n", ns, "--dry-run"}, args...)...)
		if !strings.Contains(plan, ": Refused") || !strings.Contains(plan, "! spec.selector is immutable: the render changes it") {
			t.Errorf("the dry run does not name the selector:\n%s", plan)
		}
		refused(t, "adopter", args, `Adoption.templates.stencil.dev "web" is invalid`, "Deployment "+ns+"/web: spec.selector is immutable and the render changes it")
	})

	t.Run("tampered release records", func(t *testing.T) {
		var bomb bytes.Buffer
		w := gzip.NewWriter(&bomb)
		if _, err := w.Write(bytes.Repeat([]byte{' '}, 50<<20)); err != nil {
			t.Fatal(err)
		}
		w.Close()
		// The record's data, as the server holds it, is Helm's base64 text of the gzip.
		valid := mustKubectl(t, "admin", "", "get", "secret", "sh.helm.release.v1.web.v1", "-n", ns, "-o", "jsonpath={.data.release}")
		text, _ := base64.StdEncoding.DecodeString(valid)
		raw, err := base64.StdEncoding.DecodeString(string(text))
		if err != nil || len(raw) < 100 {
			t.Fatalf("the release record holds %d bytes of gzip: %v", len(raw), err)
		}
		for name, c := range map[string]struct{ data, want string }{
			"bad64": {"H4sI!!not base64!!", "data.release is not base64"},
			"badgz": {base64.StdEncoding.EncodeToString(raw[:len(raw)/2]), "data.release is not valid gzip"},
			"bomb":  {base64.StdEncoding.EncodeToString(bomb.Bytes()), "data.release inflates to more than 16 MiB"},
		} {
			record := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sh.helm.release.v1." + name + ".v1",
				Labels: map[string]string{"owner": "helm", "name": name, "version": "1", "status": "deployed"}},
				Type: "helm.sh/release.v1", Data: map[string][]byte{"release": []byte(c.data)}}
			if _, err := kube.CoreV1().Secrets(ns).Create(context.Background(), record, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			refused(t, "adopter", []string{"helm", name, "--template", "web", "-p", "NAME=web", "--name", name},
				"spec.adoption", "Helm release record Secret "+ns+"/sh.helm.release.v1."+name+".v1: "+c.want)
		}
	})

	t.Run("a user who may not edit the namespace", func(t *testing.T) {
		refused(t, "intruder", []string{"helm", "web", "--template", "web", "-p", "NAME=web"},
			`adoptions.templates.stencil.dev is forbidden: User "intruder" cannot create resource "adoptions"`)
	})

	t.Run("a user who may not patch the Deployment", func(t *testing.T) {
		refused(t, "adopter-limited", []string{"helm", "web", "--template", "web", "-p", "NAME=web"},
			"Deployment "+ns+"/web: adopter-limited may not create it")
	})

	t.Run("a Template whose author may not patch the Deployment", func(t *testing.T) {
		refused(t, "adopter", []string{"helm", "web", "--template", "web-limited", "-p", "NAME=web"},
			"adopter-limited, the author of Template "+ns+"/web-limited, may not")
	})

	// And the release, untouched, is still Helm's.
	if out := mustHelm(t, "adopter", ns, "list"); !strings.Contains(out, "web\t1\tdeployed") {
		t.Errorf("helm list:\n%s", out)
	}
}

// TestAdoptRefusesAnotherInstancesObjects: a user with edit in the namespace adopts, by a
// selector, objects a TemplateInstance already runs: refused in plan, naming the instance's
// apply set, and the objects stay that instance's.
func TestAdoptRefusesAnotherInstancesObjects(t *testing.T) {
	ns := "e2e-adopt-steal"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	grantEdit(t, ns, "adopter")
	mustKubectl(t, "adopter", `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: shared}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: shared, labels: {app: shared}}
  data: {k: v}
---
apiVersion: templates.stencil.dev/v1alpha1
kind: TemplateInstance
metadata: {name: first}
spec:
  templateRef: {name: shared}
`, "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "first", time.Minute, "Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	before := getLive(t, ns, "configmap", "shared")
	set := before.Metadata.Labels["applyset.kubernetes.io/part-of"]
	if set == "" {
		t.Fatalf("the instance's ConfigMap is no member of its set: %+v", before.Metadata)
	}

	out, err := env.kubectl("adopter", "", "stencil", "adopt", "selector", "-l", "app=shared", "--template", "shared", "--name", "second", "-n", ns)
	if err == nil || !strings.Contains(err.Error(), "ConfigMap "+ns+"/shared: it is a member of another apply set ("+set+")") {
		t.Fatalf("adopting another instance's objects: %v\n%s", err, out)
	}
	after := getLive(t, ns, "configmap", "shared")
	if after.Metadata.ResourceVersion != before.Metadata.ResourceVersion || after.Metadata.Labels["applyset.kubernetes.io/part-of"] != set {
		t.Errorf("the instance's ConfigMap was touched: %+v", after.Metadata)
	}
	if _, err := stencilAdmin(t).TemplatesV1alpha1().TemplateInstances(ns).Get(context.Background(), "second", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused adoption created an instance: %v", err)
	}
}

// TestAdoptSelector: objects applied by hand with kubectl (client-side) are adopted by a label
// selector, read through the real API server's paged lists: the same objects, no field and no
// annotation left to kubectl, members of the instance's set; a selected object the Template
// does not render refuses the adoption until --leave-unrendered leaves it in place, unowned.
func TestAdoptSelector(t *testing.T) {
	ns := "e2e-adopt-selector"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	grantEdit(t, ns, "adopter")
	mustKubectl(t, "adopter", `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: {app: picked}}
data: {mode: fast}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: notes, labels: {app: picked}}
data: {text: hand-made}
`, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "adopter", `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: picked}
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: settings, labels: {app: picked}}
  data: {mode: fast}
`, "apply", "-n", ns, "-f", "-")
	before := map[string]liveMeta{"settings": getLive(t, ns, "configmap", "settings"), "notes": getLive(t, ns, "configmap", "notes")}

	adopt := []string{"stencil", "adopt", "selector", "-l", "app=picked", "--template", "picked", "--name", "picked", "-n", ns}
	if out, err := env.kubectl("adopter", "", adopt...); err == nil || !strings.Contains(err.Error(), "ConfigMap "+ns+"/notes: the Template does not render it") {
		t.Fatalf("a selected object the Template does not render: %v\n%s", err, out)
	}
	if got := getLive(t, ns, "configmap", "notes"); got.Metadata.ResourceVersion != before["notes"].Metadata.ResourceVersion {
		t.Errorf("the refused adoption touched notes")
	}
	if out := mustKubectl(t, "adopter", "", append(adopt, "--leave-unrendered")...); !strings.Contains(out, "templateinstance.templates.stencil.dev/picked adopted") {
		t.Fatalf("adopt:\n%s", out)
	}
	settings := getLive(t, ns, "configmap", "settings")
	if settings.Metadata.UID != before["settings"].Metadata.UID || len(oldManagers(settings)) > 0 || settings.Metadata.Labels["applyset.kubernetes.io/part-of"] == "" {
		t.Errorf("settings after adoption: %+v", settings.Metadata)
	}
	if _, ok := settings.Metadata.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; ok {
		t.Errorf("settings keeps kubectl's last applied configuration")
	}
	notes := getLive(t, ns, "configmap", "notes")
	if notes.Metadata.UID != before["notes"].Metadata.UID || notes.Metadata.Labels["applyset.kubernetes.io/part-of"] != "" {
		t.Errorf("notes, left in place: %+v", notes.Metadata)
	}
	if _, ok := notes.Metadata.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; ok {
		t.Errorf("notes, left in place, keeps kubectl's last applied configuration")
	}
}
