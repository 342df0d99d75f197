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

package templateinstance

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// storedWithoutCluster gives the instance the status a server without a cluster stores it
// with (the templateinstance strategy's).
func storedWithoutCluster(ti *templatesv1.TemplateInstance) {
	ti.Status = templatesv1.TemplateInstanceStatus{ObservedGeneration: 1}
	for _, c := range []string{templatesv1.TemplateInstanceReady, templatesv1.TemplateInstanceProgressing} {
		meta.SetStatusCondition(&ti.Status.Conditions, metav1.Condition{Type: c, Status: metav1.ConditionFalse,
			ObservedGeneration: 1, Reason: templatesv1.ReasonNoCluster, Message: "nothing is created"})
	}
}

// applied says the sync applied something in the target.
func (f *fixture) applied() bool {
	return slices.ContainsFunc(f.targetActions(), func(a string) bool { return strings.HasPrefix(a, "apply ") })
}

// TestCreatedWithoutClusterWaitsForConsent (hostile to the promise a server without a cluster
// made, "nothing will be created"): a server started later with a cluster applies such an
// instance only once someone consents on it (the annotation) or for every instance (the
// server's flag); before, every one was applied at the first pass, silently. A held instance
// says what to do, once: its next passes write nothing.
func TestCreatedWithoutClusterWaitsForConsent(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop", storedWithoutCluster)}}).build()
	f.mustSync("shop")
	if f.applied() {
		t.Fatalf("applied without consent: %v", f.targetActions())
	}
	ready := meta.FindStatusCondition(f.instance("shop").Status.Conditions, templatesv1.TemplateInstanceReady)
	if ready == nil || ready.Reason != templatesv1.ReasonCreatedWithoutCluster || !strings.Contains(ready.Message, templatesv1.AnnotationApplyCreatedWithoutCluster+"=true") {
		t.Fatalf("Ready: %+v", ready)
	}
	f.clearActions()
	f.mustSync("shop")
	if f.applied() || len(f.instances.Actions()) != 0 {
		t.Fatalf("a held instance's second pass: %v %v", f.targetActions(), f.instances.Actions())
	}
	// A spec change is no consent.
	f.edit("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.Labels = map[string]string{"team": "a"} })
	f.mustSync("shop")
	if f.applied() {
		t.Fatalf("applied after a spec change: %v", f.targetActions())
	}

	f.edit("shop", func(ti *templatesv1.TemplateInstance) {
		ti.Annotations = map[string]string{templatesv1.AnnotationApplyCreatedWithoutCluster: "true"}
	})
	f.mustSync("shop")
	if !f.applied() {
		t.Fatalf("not applied with consent: %v", f.targetActions())
	}
	if c := meta.FindStatusCondition(f.instance("shop").Status.Conditions, templatesv1.TemplateInstanceReady); c == nil || c.Reason == templatesv1.ReasonCreatedWithoutCluster {
		t.Errorf("Ready after the apply: %+v", c)
	}

	// The server's flag consents for every instance.
	f = (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop", storedWithoutCluster)}}).build()
	f.c.cfg.ApplyCreatedWithoutCluster = true
	f.mustSync("shop")
	if !f.applied() {
		t.Fatalf("not applied with --apply-instances-created-without-cluster: %v", f.targetActions())
	}
}
