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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// shopApp is what kubectl applies as an ApplySet: a Deployment, a Service and a ConfigMap.
const shopApp = `apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, labels: {app: shop}}
spec:
  replicas: 1
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: "registry.k8s.io/pause:3.10"}]}
---
apiVersion: v1
kind: Service
metadata: {name: shop, labels: {app: shop}}
spec: {selector: {app: shop}, ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: shop-config, labels: {app: shop}}
data: {greeting: hello}
`

// shopTemplate renders the same application.
const shopTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: shop}
parameters:
- {name: GREETING, value: hello}
objects:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: shop, labels: {app: shop}}
  spec:
    replicas: 1
    selector: {matchLabels: {app: shop}}
    template:
      metadata: {labels: {app: shop}}
      spec: {containers: [{name: shop, image: "registry.k8s.io/pause:3.10"}]}
- apiVersion: v1
  kind: Service
  metadata: {name: shop, labels: {app: shop}}
  spec: {selector: {app: shop}, ports: [{port: 80}]}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: shop-config, labels: {app: shop}}
  data: {greeting: "${GREETING}"}
`

var shopObjects = [][2]string{{"deployment", "shop"}, {"service", "shop"}, {"configmap", "shop-config"}}

// TestAdoptApplySet applies an application with kubectl apply --prune --applyset (the real
// kubectl, as a user with edit), adopts the ApplySet with every object retained until the
// first upgrade, and checks that nothing was recreated, that no field and no annotation is
// kubectl's, that the members belong to the instance's set and the parent is gone; then
// deleting the instance leaves every object in place, no longer anyone's.
func TestAdoptApplySet(t *testing.T) {
	ns := "e2e-adopt-set"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	grantEdit(t, ns, "adopter")
	env.useControllerManager(t, ns)
	t.Setenv("KUBECTL_APPLYSET", "true")
	mustKubectl(t, "adopter", shopApp, "apply", "-n", ns, "--prune", "--applyset=shop-set", "-f", "-")
	parent := getLive(t, ns, "secret", "shop-set")
	if parent.Metadata.Labels["applyset.kubernetes.io/id"] == "" || !strings.HasPrefix(parent.Metadata.Annotations["applyset.kubernetes.io/tooling"], "kubectl/") {
		t.Fatalf("kubectl made no ApplySet parent: %+v", parent.Metadata)
	}
	waitTest(t, time.Minute, "the Deployment's ReplicaSet", func(context.Context) error {
		if n := len(replicaSets(t, ns, "shop")); n != 1 {
			return fmt.Errorf("%d ReplicaSets", n)
		}
		return nil
	})
	before := map[string]liveMeta{}
	for _, o := range shopObjects {
		before[o[0]] = getLive(t, ns, o[0], o[1])
		if before[o[0]].Metadata.Annotations["kubectl.kubernetes.io/last-applied-configuration"] == "" || len(oldManagers(before[o[0]])) == 0 {
			t.Fatalf("%s %s is not kubectl's: %+v", o[0], o[1], before[o[0]].Metadata)
		}
	}
	sets := replicaSets(t, ns, "shop")
	mustKubectl(t, "adopter", shopTemplate, "apply", "-n", ns, "-f", "-")

	out := mustKubectl(t, "adopter", "", "stencil", "adopt", "applyset", "shop-set", "--template", "shop", "--retain-until-upgrade", "-n", ns)
	if !strings.Contains(out, "ApplySet Secret "+ns+"/shop-set (kubectl/v1.37.1) -> templateinstance shop-set: Adopting") ||
		!strings.Contains(out, "templateinstance.templates.stencil.dev/shop-set adopted") || !strings.Contains(out, "- metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]") {
		t.Fatalf("adopt:\n%s", out)
	}
	id := ""
	for _, o := range shopObjects {
		after := getLive(t, ns, o[0], o[1])
		if after.Metadata.UID != before[o[0]].Metadata.UID {
			t.Errorf("%s %s was recreated", o[0], o[1])
		}
		if old := oldManagers(after); len(old) > 0 {
			t.Errorf("%s %s keeps fields of %v", o[0], o[1], old)
		}
		if _, ok := after.Metadata.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; ok {
			t.Errorf("%s %s keeps kubectl's last applied configuration", o[0], o[1])
		}
		member := after.Metadata.Labels["applyset.kubernetes.io/part-of"]
		if member == "" || member == parent.Metadata.Labels["applyset.kubernetes.io/id"] || (id != "" && member != id) {
			t.Errorf("%s %s is a member of %q", o[0], o[1], member)
		}
		id = member
	}
	if got := replicaSets(t, ns, "shop"); len(got) != 1 || got[0] != sets[0] {
		t.Errorf("ReplicaSets %v, before %v", got, sets)
	}
	if _, err := kubeAdmin(t).CoreV1().Secrets(ns).Get(context.Background(), "shop-set", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ApplySet's parent is still there: %v", err)
	}

	// Retained until the first upgrade: deleting the instance leaves everything, no longer
	// the instance's.
	mustKubectl(t, "adopter", "", "delete", "templateinstance", "shop-set", "-n", ns, "--timeout=60s")
	for _, o := range shopObjects {
		after := getLive(t, ns, o[0], o[1])
		if after.Metadata.UID != before[o[0]].Metadata.UID || after.Metadata.Labels["applyset.kubernetes.io/part-of"] != "" {
			t.Errorf("%s %s after uninstall: %+v", o[0], o[1], after.Metadata)
		}
		for _, e := range after.Metadata.ManagedFields {
			if e.Manager == "stencil.dev/templateinstance" {
				t.Errorf("%s %s keeps Stencil's fields", o[0], o[1])
			}
		}
	}
}
