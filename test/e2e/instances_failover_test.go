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
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

const configMapTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: config}
parameters:
- {name: NAME, required: true}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}"}, data: {a: b}}
`

// leader is the index of the replica holding the controller's Lease; its identity carries the
// process id.
func leader(t testing.TB) int {
	t.Helper()
	var index int
	err := waitFor(time.Minute, "a leader", func(ctx context.Context) error {
		lease, err := kubeAdmin(t).CoordinationV1().Leases(stencilNamespace).Get(ctx, "stencil-templateinstance-controller", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil {
			return fmt.Errorf("no holder")
		}
		parts := strings.Split(*lease.Spec.HolderIdentity, "_")
		if len(parts) < 3 {
			return fmt.Errorf("identity %q", *lease.Spec.HolderIdentity)
		}
		pid, _ := strconv.Atoi(parts[len(parts)-2])
		for i, r := range env.replicas {
			if r.cmd != nil && r.cmd.Process.Pid == pid {
				index = i
				return nil
			}
		}
		return fmt.Errorf("holder %q is no running replica", *lease.Spec.HolderIdentity)
	})
	if err != nil {
		t.Fatal(err)
	}
	return index
}

func objectUIDs(ti *templatesv1.TemplateInstance) []types.UID {
	var uids []types.UID
	for _, o := range ti.Status.Objects {
		uids = append(uids, o.UID)
	}
	return uids
}

// TestTemplateInstanceFailover kills the leader with SIGKILL right after instances are
// created: the other replica takes the Lease and finishes them. Then every replica restarts,
// and nothing is lost or created again.
func TestTemplateInstanceFailover(t *testing.T) {
	ns := "e2e-instances-failover"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", configMapTemplate, "apply", "-n", ns, "-f", "-")
	before := leader(t)
	var stream strings.Builder
	for i := 0; i < 5; i++ {
		stream.WriteString("---\n" + instanceYAML(fmt.Sprintf("pending-%d", i), "config"))
	}
	mustKubectl(t, "admin", stream.String(), "apply", "-n", ns, "-f", "-")
	env.replicas[before].kill()
	// And these are created with no leader at all: only the next one can do them.
	stream.Reset()
	for i := 5; i < 10; i++ {
		stream.WriteString("---\n" + instanceYAML(fmt.Sprintf("pending-%d", i), "config"))
	}
	if err := waitFor(time.Minute, "instances created through the surviving replica", func(context.Context) error {
		_, err := env.kubectl("admin", stream.String(), "apply", "-n", ns, "-f", "-")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if env.replicas[before].cmd == nil {
			if err := env.restartReplica(before); err != nil {
				t.Errorf("restarting replica %d: %v", before, err)
			}
		}
	}()

	uids := map[string][]types.UID{}
	for i := 0; i < 10; i++ {
		name := fmt.Sprintf("pending-%d", i)
		ti := waitInstance(t, ns, name, 90*time.Second, name+" Ready after the leader died", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
		uids[name] = objectUIDs(ti)
	}
	if after := leader(t); after == before {
		t.Fatalf("replica %d, killed, still leads", before)
	}
	if err := env.restartReplica(before); err != nil {
		t.Fatal(err)
	}

	// A restart of every replica loses nothing: the instances, their objects and their
	// status are in etcd and the cluster, and the new leader re-creates nothing.
	for i := range env.replicas {
		env.replicas[i].stop()
		if err := env.restartReplica(i); err != nil {
			t.Fatal(err)
		}
	}
	leader(t)
	mustKubectl(t, "admin", instanceYAML("after-restart", "config"), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "after-restart", 90*time.Second, "a new instance Ready after the restart", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	for name, want := range uids {
		ti := waitInstance(t, ns, name, time.Minute, name+" still Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
		if got := objectUIDs(ti); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: objects %v after the restart, %v before", name, got, want)
		}
	}
}

// TestTemplateInstanceNoAdoption: an object that exists already, made by hand or by another
// instance, is refused and never taken over, so deleting the instance never deletes it.
func TestTemplateInstanceNoAdoption(t *testing.T) {
	ns := "e2e-instances-adoption"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	mustKubectl(t, "admin", configMapTemplate, "apply", "-n", ns, "-f", "-")
	mustKubectl(t, "admin", "", "create", "configmap", "by-hand", "-n", ns, "--from-literal=a=b")
	mustKubectl(t, "admin", instanceYAML("by-hand", "config"), "apply", "-n", ns, "-f", "-")
	ti := waitInstance(t, ns, "by-hand", time.Minute, "Failed", conditionIs(templatesv1.TemplateInstanceFailed, metav1.ConditionTrue))
	if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed); !strings.Contains(c.Message, "ConfigMap "+ns+"/by-hand: exists and it was not created by this instance") {
		t.Fatalf("Failed: %+v", c)
	}

	// Two instances rendering the same object: the second is refused.
	mustKubectl(t, "admin", instanceYAML("first", "config"), "apply", "-n", ns, "-f", "-")
	waitInstance(t, ns, "first", time.Minute, "Ready", conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue))
	mustKubectl(t, "admin", `apiVersion: templates.stencil.dev/v1alpha1
kind: TemplateInstance
metadata: {name: second}
spec:
  templateRef: {name: config}
  parameters: {NAME: first}
`, "apply", "-n", ns, "-f", "-")
	ti = waitInstance(t, ns, "second", time.Minute, "Failed", conditionIs(templatesv1.TemplateInstanceFailed, metav1.ConditionTrue))
	if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed); !strings.Contains(c.Message, "belongs to another apply set") {
		t.Fatalf("Failed: %+v", c)
	}

	mustKubectl(t, "admin", "", "delete", "templateinstance", "by-hand", "second", "-n", ns, "--timeout=60s")
	for _, name := range []string{"by-hand", "first"} {
		if _, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			t.Errorf("ConfigMap %s was deleted with an instance that did not create it: %v", name, err)
		}
	}
}
