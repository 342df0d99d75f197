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
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestReconcileUpToDate: a pass that succeeded is not repeated; later syncs only read the
// objects' readiness, and write the status only when it changed.
func TestReconcileUpToDate(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1}}`),
		newInstance("shop")}}).build()
	if requeue := f.mustSync("shop"); requeue != readinessPoll {
		t.Fatalf("a pass with objects not ready asks for a look in %v", requeue)
	}

	f.clearActions()
	if requeue := f.mustSync("shop"); requeue != readinessPoll {
		t.Errorf("still not ready: requeue %v", requeue)
	}
	if got := joined(f.targetActions()); got != "get deployments demo/web" {
		t.Errorf("an up-to-date instance did\n%s", got)
	}
	if reasons := f.statusReasons(); len(reasons) != 0 {
		t.Errorf("nothing changed, yet the status was written: %v", reasons)
	}

	// The Deployment becomes ready.
	web := f.liveObject("deployments", "demo", "web")
	_ = unstructured.SetNestedField(web.Object, map[string]interface{}{"observedGeneration": int64(0), "replicas": int64(1), "updatedReplicas": int64(1), "readyReplicas": int64(1),
		"availableReplicas": int64(1), "conditions": []interface{}{map[string]interface{}{"type": "Available", "status": "True"}}}, "status")
	if err := f.target.Tracker().Update(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, web, "demo"); err != nil {
		t.Fatal(err)
	}
	f.clearActions()
	if requeue := f.mustSync("shop"); requeue != 0 {
		t.Errorf("a Ready instance asks for a look in %v", requeue)
	}
	if reasons := f.statusReasons(); joined(reasons) != "Ready" {
		t.Errorf("statuses written: %v", reasons)
	}
	if ti := f.instance("shop"); !ti.Status.Objects[0].Ready {
		t.Errorf("inventory: %+v", ti.Status.Objects)
	}
}

// TestReconcileReappliesWhatWasDeleted: an object deleted behind the instance's back is
// applied again at the next look.
func TestReconcileReappliesWhatWasDeleted(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop")}}).build()
	f.mustSync("shop")
	if err := f.target.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "demo", "config"); err != nil {
		t.Fatal(err)
	}
	if requeue := f.mustSync("shop"); requeue != time.Millisecond {
		t.Errorf("requeue %v: the pass must come at once", requeue)
	}
	if ti := f.instance("shop"); ti.Status.ObservedGeneration != 0 {
		t.Errorf("observed generation %d: the next sync would not apply", ti.Status.ObservedGeneration)
	}
	f.mustSync("shop")
	if f.liveObject("configmaps", "demo", "config") == nil {
		t.Error("the ConfigMap was not applied again")
	}
}

// upToDate is an instance whose last pass applied generation 1 of Template app's version 7
// and succeeded, with the objects in its inventory.
func upToDate(objects ...templatesv1.TemplateInstanceObject) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		ti.Status.Objects, ti.Status.ObservedGeneration, ti.Status.TemplateResourceVersion = objects, 1, "7"
		setReadiness(ti)
	}
}

// TestRefreshReadiness: an up-to-date instance reads each object of its inventory; one it
// cannot map is not ready, and a failure to read is retried.
func TestRefreshReadiness(t *testing.T) {
	widget := templatesv1.TemplateInstanceObject{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "demo", Name: "w", Ready: true}
	broken := templatesv1.TemplateInstanceObject{APIVersion: "a/b/c", Kind: "Widget", Namespace: "demo", Name: "x", Ready: true}
	for _, tc := range []struct {
		name    string
		objects []templatesv1.TemplateInstanceObject
		setup   func(f *fixture)
		reasons []string
		err     bool
	}{
		{name: "all ready: nothing to write", objects: []templatesv1.TemplateInstanceObject{ref("ConfigMap", "config", "uid-1")}},
		{name: "a kind the cluster no longer serves", objects: []templatesv1.TemplateInstanceObject{ref("ConfigMap", "config", "uid-1"), widget}, reasons: []string{"NotReady"}},
		{name: "an apiVersion that does not parse is skipped", objects: []templatesv1.TemplateInstanceObject{ref("ConfigMap", "config", "uid-1"), broken}},
		{name: "the cluster fails a read", objects: []templatesv1.TemplateInstanceObject{ref("ConfigMap", "config", "uid-1")}, err: true,
			setup: func(f *fixture) {
				failWith(f.target, "get", "configmaps", false, apierrors.NewServiceUnavailable("try later"))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop", upToDate(tc.objects...))},
				live: []runtime.Object{member("ConfigMap", "config", "uid-1")}}).build()
			if tc.setup != nil {
				tc.setup(f)
			}
			_, err := f.sync("shop")
			if (err != nil) != tc.err || errors.Is(err, errRetry) {
				t.Errorf("sync: %v", err)
			}
			if got := f.statusReasons(); joined(got) != joined(tc.reasons) {
				t.Errorf("statuses written %v, want %v", got, tc.reasons)
			}
			if slices.ContainsFunc(f.targetActions(), func(a string) bool { return !strings.HasPrefix(a, "get ") }) {
				t.Errorf("a look at readiness wrote: %v", f.targetActions())
			}
		})
	}
}
