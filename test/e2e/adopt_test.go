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
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const adoptNamespace = "e2e-adopt"

// helm runs the Helm v4 library's driver (hack/helm-tools) as user in namespace.
func (c *cluster) helm(user, namespace string, args ...string) (string, error) {
	cmd := exec.Command(c.bin.helmDriver, append([]string{"--kubeconfig", c.kubeconfigs[user], "--namespace", namespace}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("helm-driver %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func mustHelm(t *testing.T, user, namespace string, args ...string) string {
	t.Helper()
	out, err := env.helm(user, namespace, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var webChart = filepath.Join(repoRoot, "artifacts", "examples", "web-chart")

// releaseObjects are the objects the web chart makes for a release, by kind, as
// kubectl names the resources.
func releaseObjects(release string) [][2]string {
	return [][2]string{{"deployment", release}, {"service", release}, {"secret", release + "-db"},
		{"persistentvolumeclaim", release + "-data"}, {"configmap", release + "-config"}}
}

// liveMeta reads one object as the admin, as JSON.
type liveMeta struct {
	Metadata struct {
		UID             types.UID                   `json:"uid"`
		ResourceVersion string                      `json:"resourceVersion"`
		Labels          map[string]string           `json:"labels"`
		Annotations     map[string]string           `json:"annotations"`
		ManagedFields   []metav1.ManagedFieldsEntry `json:"managedFields"`
	} `json:"metadata"`
}

func getLive(t *testing.T, ns, resource, name string) liveMeta {
	t.Helper()
	var o liveMeta
	decodeJSON(t, mustKubectl(t, "admin", "", "get", resource, name, "-n", ns, "-o", "json", "--show-managed-fields"), &o)
	return o
}

// replicaSets are the uids of the ReplicaSets of a Deployment's pods.
func replicaSets(t *testing.T, ns, app string) []types.UID {
	t.Helper()
	list, err := kubeAdmin(t).AppsV1().ReplicaSets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	var out []types.UID
	for _, rs := range list.Items {
		out = append(out, rs.UID)
	}
	return out
}

// boundVolume makes a volume for a claim, so that the PersistentVolume binder binds it.
func boundVolume(t *testing.T, ns, claim string) {
	t.Helper()
	mustKubectl(t, "admin", fmt.Sprintf(`apiVersion: v1
kind: PersistentVolume
metadata: {name: %[1]s-%[2]s}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/%[1]s-%[2]s}
  claimRef: {namespace: %[1]s, name: %[2]s}
`, ns, claim), "apply", "-f", "-")
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "pv", ns+"-"+claim, "--wait=false") })
}

// waitFor a condition of the test, failing it on timeout.
func waitTest(t *testing.T, timeout time.Duration, what string, cond func(context.Context) error) {
	t.Helper()
	if err := waitFor(timeout, what, cond); err != nil {
		t.Fatal(err)
	}
}

// oldManagers lists the managers of Helm and kubectl left on an object.
func oldManagers(o liveMeta) []string {
	var out []string
	for _, e := range o.Metadata.ManagedFields {
		if strings.HasPrefix(e.Manager, "helm") || strings.HasPrefix(e.Manager, "kubectl") {
			out = append(out, e.Manager+"/"+string(e.Operation))
		}
	}
	return out
}

// TestAdoptHelmRelease installs the web chart with the real Helm library, client-side (then
// upgraded: two records) and server-side, and adopts each release under a TemplateInstance
// of the web Template as a user with edit: the dry run changes nothing; the adoption
// recreates nothing (the same uids, the same ReplicaSet), leaves no field to Helm, keeps the
// password, removes the release's records (the library's list no longer shows it); adopting
// again writes nothing; an upgrade through Stencil changes the Deployment; uninstalling
// keeps the claim the Template retains, with no owner.
func TestAdoptHelmRelease(t *testing.T) {
	ns := adoptNamespace
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	grantEdit(t, ns, "adopter")
	env.useControllerManager(t, ns)
	template, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "examples", "web.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "adopter", string(template), "apply", "-n", ns, "-f", "-")

	for _, mode := range []struct{ release, flag string }{{"web-csa", ""}, {"web-ssa", "--server-side"}} {
		t.Run(mode.release, func(t *testing.T) { adoptRelease(t, ns, mode.release, mode.flag) })
	}
}

func adoptRelease(t *testing.T, ns, release, mode string) {
	boundVolume(t, ns, release+"-data")
	install := []string{"install", release, webChart}
	if mode != "" {
		install = append(install, mode)
	}
	mustHelm(t, "adopter", ns, install...)
	if mode == "" {
		// A second revision: adoption removes every record of the release.
		mustHelm(t, "adopter", ns, "upgrade", release, webChart)
	}
	kube := kubeAdmin(t)
	waitTest(t, time.Minute, "the release's claim bound and its Deployment's ReplicaSet", func(ctx context.Context) error {
		pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, release+"-data", metav1.GetOptions{})
		if err != nil || pvc.Status.Phase != corev1.ClaimBound {
			return fmt.Errorf("claim: %v %v", pvc.Status.Phase, err)
		}
		if n := len(replicaSets(t, ns, release)); n != 1 {
			return fmt.Errorf("%d ReplicaSets", n)
		}
		return nil
	})
	if out := mustHelm(t, "adopter", ns, "list"); !strings.Contains(out, release+"\t") {
		t.Fatalf("helm list does not show %s:\n%s", release, out)
	}
	before := map[string]liveMeta{}
	for _, o := range releaseObjects(release) {
		before[o[0]] = getLive(t, ns, o[0], o[1])
		if len(oldManagers(before[o[0]])) == 0 || before[o[0]].Metadata.Annotations["meta.helm.sh/release-name"] != release {
			t.Fatalf("%s %s is not Helm's: %+v", o[0], o[1], before[o[0]].Metadata)
		}
	}
	sets := replicaSets(t, ns, release)
	secret, err := kube.CoreV1().Secrets(ns).Get(context.Background(), release+"-db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	password := string(secret.Data["password"])

	adopt := []string{"stencil", "adopt", "helm", release, "--template", "web", "-p", "NAME=" + release, "-n", ns}
	plan := mustKubectl(t, "adopter", "", append(adopt, "--dry-run")...)
	for _, want := range []string{`Helm release ` + ns + `/` + release + ` revision \d \(chart web-1.0.0\) -> templateinstance ` + release + `: Planned`,
		`(?m)^Adopt +Deployment ` + ns + `/` + release + ` +delete +\d+ +\d+ +helm$`,
		`(?m)^Adopt +PersistentVolumeClaim ` + ns + `/` + release + `-data +retain `,
		`(?m)^  - metadata.annotations\[meta.helm.sh/release-name\]$`,
		`generated parameter DB_PASSWORD: kept from Secret ` + ns + `/` + release + `-db data.password`,
		`removed last: secrets ` + ns + `/sh.helm.release.v1.` + release + `.v1`} {
		if !regexp.MustCompile(want).MatchString(plan) {
			t.Errorf("the plan does not say %q:\n%s", want, plan)
		}
	}
	for _, o := range releaseObjects(release) {
		if got := getLive(t, ns, o[0], o[1]).Metadata.ResourceVersion; got != before[o[0]].Metadata.ResourceVersion && o[0] != "deployment" {
			t.Errorf("the dry run changed %s %s", o[0], o[1])
		}
	}
	if _, err := stencilAdmin(t).TemplatesV1alpha1().TemplateInstances(ns).Get(context.Background(), release, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the dry run created the instance: %v", err)
	}

	adopted := time.Now()
	if out := mustKubectl(t, "adopter", "", adopt...); !strings.Contains(out, "templateinstance.templates.stencil.dev/"+release+" adopted") {
		t.Fatalf("adopt:\n%s", out)
	}
	// The takeover wrote as the adopter: Stencil's ServiceAccount impersonating them.
	const sa = "system:serviceaccount:stencil-system:stencil-apiserver"
	writes := strings.Join(writesSince(t, ns, adopted), "\n")
	for _, want := range []string{"patch deployments/" + release + " by " + sa + " as adopter", "delete secrets/sh.helm.release.v1." + release + ".v1 by " + sa + " as adopter"} {
		if !strings.Contains(writes, want) {
			t.Errorf("the audit log has no %q:\n%s", want, writes)
		}
	}
	for _, o := range releaseObjects(release) {
		after := getLive(t, ns, o[0], o[1])
		if after.Metadata.UID != before[o[0]].Metadata.UID {
			t.Errorf("%s %s was recreated", o[0], o[1])
		}
		if old := oldManagers(after); len(old) > 0 {
			t.Errorf("%s %s keeps fields of %v", o[0], o[1], old)
		}
		for _, k := range []string{"meta.helm.sh/release-name", "meta.helm.sh/release-namespace"} {
			if _, ok := after.Metadata.Annotations[k]; ok {
				t.Errorf("%s %s keeps annotation %s", o[0], o[1], k)
			}
		}
		if after.Metadata.Labels["app.kubernetes.io/managed-by"] != "" || after.Metadata.Labels["applyset.kubernetes.io/part-of"] == "" {
			t.Errorf("%s %s labels %v", o[0], o[1], after.Metadata.Labels)
		}
	}
	if got := replicaSets(t, ns, release); len(got) != 1 || got[0] != sets[0] {
		t.Errorf("ReplicaSets %v, before %v: the pod template changed", got, sets)
	}
	secret, err = kube.CoreV1().Secrets(ns).Get(context.Background(), release+"-db", metav1.GetOptions{})
	if err != nil || string(secret.Data["password"]) != password {
		t.Errorf("the password changed: %v", err)
	}
	if kept := generatedValue(t, ns, release, "DB_PASSWORD"); kept != password {
		t.Errorf("the instance keeps %q as its generated password, the release had %q", kept, password)
	}
	if out := mustHelm(t, "adopter", ns, "list"); strings.Contains(out, release+"\t") {
		t.Errorf("helm list still shows %s:\n%s", release, out)
	}
	if records, err := kube.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=" + release}); err != nil || len(records.Items) != 0 {
		t.Errorf("release records left: %v %v", records, err)
	}

	// Adopting again writes nothing to the cluster: the audit log has no write in the window.
	since := time.Now()
	if out := mustKubectl(t, "adopter", "", adopt...); !strings.Contains(out, "nothing changed") {
		t.Errorf("adopting again:\n%s", out)
	}
	if writes := writesSince(t, ns, since); len(writes) > 0 {
		t.Errorf("adopting again wrote %v", writes)
	}

	// An upgrade through Stencil changes the Deployment: no Helm field is left to conflict.
	mustKubectl(t, "adopter", "", "patch", "templateinstance", release, "-n", ns, "--type=merge", "-p", `{"spec":{"parameters":{"IMAGE":"registry.k8s.io/pause:3.9"}}}`)
	waitTest(t, time.Minute, "the Deployment upgraded", func(ctx context.Context) error {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, release, metav1.GetOptions{})
		if err != nil || d.Spec.Template.Spec.Containers[0].Image != "registry.k8s.io/pause:3.9" {
			return fmt.Errorf("image %v", err)
		}
		return nil
	})

	// Uninstall: what the Template retains (the claim) stays, no longer anyone's.
	mustKubectl(t, "adopter", "", "delete", "templateinstance", release, "-n", ns, "--timeout=60s")
	claim := getLive(t, ns, "persistentvolumeclaim", release+"-data")
	if claim.Metadata.UID != before["persistentvolumeclaim"].Metadata.UID || claim.Metadata.Labels["applyset.kubernetes.io/part-of"] != "" {
		t.Errorf("the retained claim: %+v", claim.Metadata)
	}
	for _, e := range claim.Metadata.ManagedFields {
		if e.Manager == "stencil.dev/templateinstance" {
			t.Errorf("the retained claim keeps Stencil's fields")
		}
	}
	for _, o := range releaseObjects(release) {
		if o[0] == "persistentvolumeclaim" {
			continue
		}
		if out, err := env.kubectl("admin", "", "get", o[0], o[1], "-n", ns); err == nil {
			t.Errorf("%s %s outlived its instance: %s", o[0], o[1], out)
		}
	}
}

// writesSince lists the writes to objects of ns in the audit log since a time (dry runs and
// refused requests aside), by anyone but kube-controller-manager, each as verb resource/name
// by user.
func writesSince(t *testing.T, ns string, since time.Time) []string {
	t.Helper()
	var out []string
	for _, e := range auditEvents(t) {
		if e.ObjectRef.Namespace != ns || e.RequestReceived.Before(since) || e.User.Username == "system:kube-controller-manager" ||
			e.ResponseStatus.Code >= 300 || strings.Contains(e.RequestURI, "dryRun=All") {
			continue
		}
		as := ""
		if e.ImpersonatedUser != nil {
			as = " as " + e.ImpersonatedUser.Username
		}
		out = append(out, fmt.Sprintf("%s %s/%s by %s%s", e.Verb, e.ObjectRef.Resource, e.ObjectRef.Name, e.User.Username, as))
	}
	return out
}

// generatedValue reads a generated value an instance keeps.
func generatedValue(t *testing.T, ns, instance, name string) string {
	t.Helper()
	s, err := kubeAdmin(t).CoreV1().Secrets(ns).Get(context.Background(), instance+"-generated", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return string(s.Data[name])
}

// auditEvent is what the tests read of an audit event.
type auditEvent struct {
	Verb            string    `json:"verb"`
	RequestReceived time.Time `json:"requestReceivedTimestamp"`
	User            struct {
		Username string `json:"username"`
	} `json:"user"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ObjectRef struct {
		Resource, Namespace, Name string
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestURI string `json:"requestURI"`
}

// auditEvents reads the audit log.
func auditEvents(t *testing.T) []auditEvent {
	t.Helper()
	data, err := os.ReadFile(env.path("audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []auditEvent
	for _, line := range strings.Split(string(data), "\n") {
		var e auditEvent
		if json.Unmarshal([]byte(line), &e) == nil && e.Verb != "" {
			out = append(out, e)
		}
	}
	return out
}

func decodeJSON(t *testing.T, data string, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(data), into); err != nil {
		t.Fatalf("%v: %.300s", err, data)
	}
}
