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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// controllerManagerControllers are the controllers of kube-controller-manager the tests that
// need it run: Deployments make ReplicaSets and ReplicaSets make Pods (which stay Pending: the
// cluster has no scheduler and no kubelet), namespaces get their default ServiceAccount
// (without which admission refuses those Pods), and claims bind to the volumes a test
// provides. The garbage collector and the namespace controller stay off: tests delete
// objects themselves, and the collector would chase owner references into Stencil's API
// while tests stop its replicas.
var controllerManagerControllers = []string{
	"deployment-controller", "replicaset-controller", "serviceaccount-controller", "persistentvolume-binder-controller",
}

// useControllerManager runs kube-controller-manager (the same pinned version as
// kube-apiserver, as system:kube-controller-manager in system:masters) for the rest of the test t, and waits until its
// controllers run: the default ServiceAccount of namespace exists. It runs only while a test
// that needs it does: the suite's other tests write what the deployment controller would
// (a Deployment's available status), which the real one would undo. It costs the suite
// nothing at start-up and such a test a second or two.
func (c *cluster) useControllerManager(t *testing.T, namespace string) {
	t.Helper()
	if c.controllerManager != nil {
		t.Fatal("kube-controller-manager already runs: tests that use it must not nest")
	}
	p, err := startProcess(c.logDir, "kube-controller-manager", c.bin.kubeControllerManager,
		"--kubeconfig="+c.kubeconfigs["kube-controller-manager"],
		"--leader-elect=false",
		"--controllers="+strings.Join(controllerManagerControllers, ","),
		// Nothing scrapes it: no port of its own.
		"--secure-port=0",
		"--v=1",
	)
	if err != nil {
		t.Fatal(err)
	}
	c.controllerManager = p
	t.Cleanup(func() {
		p.stop()
		c.controllerManager = nil
	})
	kube, err := kubernetes.NewForConfig(c.restConfig("admin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := waitFor(time.Minute, "kube-controller-manager's default ServiceAccount in "+namespace, func(ctx context.Context) error {
		_, err := kube.CoreV1().ServiceAccounts(namespace).Get(ctx, "default", metav1.GetOptions{})
		return err
	}, p); err != nil {
		t.Fatal(err)
	}
}

// TestControllerManager checks what the adoption tests rely on: with kube-controller-manager
// running, a Deployment makes a ReplicaSet, which makes a Pod.
func TestControllerManager(t *testing.T) {
	const ns = "e2e-kcm"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	t.Cleanup(func() { _, _ = env.kubectl("admin", "", "delete", "namespace", ns, "--wait=false") })
	env.useControllerManager(t, ns)
	mustKubectl(t, "admin", "", "create", "deployment", "web", "-n", ns, "--image=registry.k8s.io/pause:3.10")
	kube := kubeAdmin(t)
	if err := waitFor(time.Minute, "a ReplicaSet and a Pod of the Deployment", func(ctx context.Context) error {
		sets, err := kube.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(sets.Items) != 1 {
			return fmt.Errorf("ReplicaSets: %v %v", sets, err)
		}
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(pods.Items) != 1 {
			return fmt.Errorf("Pods: %d %v", len(pods.Items), err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
