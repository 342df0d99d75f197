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
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/netutil"
)

// TestTemplateInstanceLocalTarget runs stencil-apiserver in local mode with
// --target-kubeconfig: instances stored locally create their objects in the cluster, with the
// kubeconfig's own identity (the editor's), and go with the instance.
func TestTemplateInstanceLocalTarget(t *testing.T) {
	ns := "e2e-instances-local"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	grantEdit(t, ns, "editor")
	dir := t.TempDir()
	local, cs, localKubectl := startLocal(t, dir, ns, "--target-kubeconfig", env.kubeconfigs["editor"])
	defer local.stop()
	localKubectl(configMapTemplate, "apply", "-f", "-")
	localKubectl(instanceYAML("local", "config"), "apply", "-f", "-")
	var ti *templatesv1.TemplateInstance
	var err error
	if err := waitFor(time.Minute, "the local instance Ready", func(ctx context.Context) error {
		ti, err = cs.TemplatesV1alpha1().TemplateInstances(ns).Get(ctx, "local", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return conditionIs(templatesv1.TemplateInstanceReady, metav1.ConditionTrue)(ti)
	}, local); err != nil {
		t.Fatalf("%v: %+v", err, ti)
	}
	cm, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(context.Background(), "local", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the object is not in the cluster: %v", err)
	}
	// Written by the editor, the kubeconfig's user, impersonating nobody.
	if err := waitFor(10*time.Second, "the audit event of the ConfigMap's creation", func(context.Context) error {
		return auditedAs(ns, "local", "editor", "")
	}); err != nil {
		t.Fatal(err)
	}
	if cm.Labels["applyset.kubernetes.io/part-of"] == "" {
		t.Fatalf("labels: %v", cm.Labels)
	}

	localKubectl("", "delete", "templateinstance", "local", "--timeout=60s")
	if _, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(context.Background(), "local", metav1.GetOptions{}); err == nil {
		t.Fatal("the object stayed after the instance was deleted")
	}
	if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceFailed); c == nil || c.Status != metav1.ConditionFalse {
		t.Fatalf("Failed: %+v", c)
	}
}

// startLocal starts stencil-apiserver in local mode over dir, with more args, and returns it, a
// clientset of it and a kubectl of it in namespace ns (which fails the test on an error).
func startLocal(t *testing.T, dir, ns string, args ...string) (*process, clientset.Interface, func(stdin string, args ...string) string) {
	t.Helper()
	ports, err := netutil.FreeLoopbackPorts(1)
	if err != nil {
		t.Fatal(err)
	}
	local, err := startProcess(env.logDir, "stencil-apiserver-local", env.bin.stencilAPIServer,
		append([]string{"--local", "--local-dir", dir, "--secure-port", strconv.Itoa(ports[0])}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	var cs clientset.Interface
	if err := waitFor(2*time.Minute, "the local server", func(ctx context.Context) error {
		if _, err := os.Stat(kubeconfig); err != nil {
			return err
		}
		config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return err
		}
		if cs, err = clientset.NewForConfig(config); err != nil {
			return err
		}
		_, err = cs.TemplatesV1alpha1().Templates(ns).List(ctx, metav1.ListOptions{})
		return err
	}, local); err != nil {
		local.stop()
		t.Fatal(err)
	}
	return local, cs, func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(env.bin.kubectl, append([]string{"--kubeconfig", kubeconfig, "-n", ns}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("local kubectl %v: %v: %s", args, err, out)
		}
		return string(out)
	}
}

// TestLocalInstancesWaitForConsent (hostile to local mode's promise): an instance stored by a
// local server without a cluster ("nothing is created") is not applied when the same server
// is started again with --target-kubeconfig, until someone consents on it (before, every such
// instance was applied at once, silently); the server logs the one it holds; an instance
// created once there is a cluster is applied as ever.
func TestLocalInstancesWaitForConsent(t *testing.T) {
	ns := "e2e-instances-consent"
	mustKubectl(t, "admin", "", "create", "namespace", ns)
	grantEdit(t, ns, "editor")
	dir := t.TempDir()
	ctx := context.Background()
	readyReason := func(cs clientset.Interface, name string) (string, error) {
		ti, err := cs.TemplatesV1alpha1().TemplateInstances(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
		if c == nil {
			return "", nil
		}
		return string(c.Status) + " " + c.Reason, nil
	}

	local, cs, localKubectl := startLocal(t, dir, ns)
	localKubectl(configMapTemplate, "apply", "-f", "-")
	localKubectl(instanceYAML("early", "config"), "apply", "-f", "-")
	if got, err := readyReason(cs, "early"); err != nil || got != "False NoCluster" {
		local.stop()
		t.Fatalf("stored without a cluster: %q %v", got, err)
	}
	local.stop()

	local, cs, localKubectl = startLocal(t, dir, ns, "--target-kubeconfig", env.kubeconfigs["editor"])
	defer local.stop()
	if err := waitFor(time.Minute, "the early instance held", func(context.Context) error {
		got, err := readyReason(cs, "early")
		if err == nil && got != "False CreatedWithoutCluster" {
			err = fmt.Errorf("Ready %q", got)
		}
		return err
	}, local); err != nil {
		t.Fatal(err)
	}
	localKubectl(instanceYAML("late", "config"), "apply", "-f", "-")
	if err := waitFor(time.Minute, "the late instance Ready", func(context.Context) error {
		got, err := readyReason(cs, "late")
		if err == nil && !strings.HasPrefix(got, "True ") {
			err = fmt.Errorf("Ready %q", got)
		}
		return err
	}, local); err != nil {
		t.Fatal(err)
	}
	if _, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "early", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the held instance's ConfigMap: %v", err)
	}
	log, err := os.ReadFile(local.log.Name())
	if err != nil || !strings.Contains(string(log), "templateinstance "+ns+"/early: created while the server had no cluster; not applied") {
		t.Errorf("the server did not log the held instance (%v)", err)
	}

	localKubectl("", "annotate", "templateinstance", "early", templatesv1.AnnotationApplyCreatedWithoutCluster+"=true")
	if err := waitFor(time.Minute, "the early instance Ready once consented", func(context.Context) error {
		got, err := readyReason(cs, "early")
		if err == nil && !strings.HasPrefix(got, "True ") {
			err = fmt.Errorf("Ready %q", got)
		}
		return err
	}, local); err != nil {
		t.Fatal(err)
	}
	if _, err := kubeAdmin(t).CoreV1().ConfigMaps(ns).Get(ctx, "early", metav1.GetOptions{}); err != nil {
		t.Fatalf("the consented instance's ConfigMap: %v", err)
	}
	localKubectl("", "delete", "templateinstance", "early", "late", "--timeout=60s")
}
