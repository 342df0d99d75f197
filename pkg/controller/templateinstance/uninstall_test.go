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
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// deleted marks the instance deleted, with the objects in its inventory.
func deleted(objects ...templatesv1.TemplateInstanceObject) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		now := metav1.Now()
		ti.DeletionTimestamp = &now
		ti.Status.Objects = objects
	}
}

func hasFinalizer(ti *templatesv1.TemplateInstance) bool {
	return slices.Contains(ti.Finalizers, templatesv1.TemplateInstanceFinalizer)
}

// keepsFinalizer checks that a deleted instance whose objects are not all gone stays.
func keepsFinalizer(t *testing.T, f *fixture) {
	if !hasFinalizer(f.instance("shop")) {
		t.Error("the finalizer is gone while objects remain")
	}
}

func uninstallReasonCases() []reasonCase {
	return []reasonCase{{
		name:    "uninstall waits for an object that a finalizer holds",
		objects: []runtime.Object{newInstance("shop", deleted(ref("ConfigMap", "config", "uid-1")))},
		live:    []runtime.Object{member("ConfigMap", "config", "uid-1", terminating)},
		reasons: []string{"Deleting"}, message: "waiting for objects to go: ConfigMap demo/config", requeue: deletionPoll,
		check: keepsFinalizer,
	}, {
		name:    "uninstall may not delete an object",
		objects: []runtime.Object{newInstance("shop", deleted(ref("ConfigMap", "config", "uid-1")))},
		live:    []runtime.Object{member("ConfigMap", "config", "uid-1")},
		setup: func(f *fixture) {
			failWith(f.target, "delete", "configmaps", false, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "config", errors.New("RBAC: no binding")))
		},
		reasons: []string{"DeleteFailed"}, message: `ConfigMap demo/config: configmaps "config" is forbidden: RBAC: no binding`,
		check: keepsFinalizer,
	}, {
		name:    "uninstall may not release a retained object",
		objects: []runtime.Object{newInstance("shop", deleted(retained(ref("ConfigMap", "config", "uid-1"))))},
		live:    []runtime.Object{member("ConfigMap", "config", "uid-1")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", false, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "config", errors.New("RBAC: no binding")))
		},
		reasons: []string{"ReleaseFailed"}, message: `ConfigMap demo/config: configmaps "config" is forbidden: RBAC: no binding`,
		check: keepsFinalizer,
	}}
}

// retained gives an inventory entry the retain lifecycle.
func retained(o templatesv1.TemplateInstanceObject) templatesv1.TemplateInstanceObject {
	o.Lifecycle = templatesv1.LifecycleRetain
	return o
}

// TestUninstallReasons drives uninstall into every reason it writes.
func TestUninstallReasons(t *testing.T) {
	for _, tc := range uninstallReasonCases() {
		t.Run(tc.name, tc.run)
	}
}

// TestUninstall: a deleted instance deletes its objects, in reverse order and then its
// generated-values Secret, as its requester, only objects it applied, and lets go only when
// they are gone.
func TestUninstall(t *testing.T) {
	twoObjects := deleted(ref("ConfigMap", "a", "uid-a"), ref("ConfigMap", "b", "uid-b"))
	withSecret := func(ti *templatesv1.TemplateInstance) { ti.Status.GeneratedParametersSecret = "shop-generated" }
	unlabelled := func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"app": "mine"}) }
	deleteSteps := func(names ...string) []string {
		var out []string
		for _, n := range names {
			resource := "configmaps"
			if n == "shop-generated" {
				resource = "secrets"
			}
			out = append(out, "get "+resource+" demo/"+n, "delete "+resource+" demo/"+n, "get "+resource+" demo/"+n)
		}
		return out
	}
	cases := []struct {
		name     string
		instance *templatesv1.TemplateInstance
		live     []runtime.Object
		setup    func(f *fixture)
		actions  []string
		// released: the finalizer is removed; reason: the failure written.
		released bool
		reason   string
		remains  []string
		check    func(*testing.T, *fixture)
	}{{
		name:     "every object, in reverse order, then the generated values",
		instance: newInstance("shop", twoObjects, withSecret),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a"), member("ConfigMap", "b", "uid-b"), member("Secret", "shop-generated", "uid-s")},
		actions:  deleteSteps("b", "a", "shop-generated"), released: true,
	}, {
		name:     "a retained object stays, no longer the instance's; the others go",
		instance: newInstance("shop", deleted(retained(ref("ConfigMap", "a", "uid-a")), ref("ConfigMap", "b", "uid-b"))),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a"), member("ConfigMap", "b", "uid-b")},
		actions:  append(deleteSteps("b"), "get configmaps demo/a", "patch configmaps demo/a"), released: true, remains: []string{"a"},
		check: func(t *testing.T, f *fixture) {
			a := f.liveObject("configmaps", "demo", "a")
			if _, member := a.GetLabels()[inventory.PartOfLabel]; member || f.liveObject("configmaps", "demo", "b") != nil {
				t.Errorf("a still the instance's (%v), or b not deleted; %+v", a.GetLabels(), lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed))
			}
		},
	}, {
		name: "the Orphan policy keeps the objects",
		instance: newInstance("shop", twoObjects, func(ti *templatesv1.TemplateInstance) {
			ti.Annotations = map[string]string{templatesv1.AnnotationDeletionPolicy: templatesv1.DeletionPolicyOrphan}
		}),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a"), member("ConfigMap", "b", "uid-b")},
		released: true, remains: []string{"a", "b"},
	}, {
		name:     "an instance without the finalizer is left alone",
		instance: newInstance("shop", twoObjects, func(ti *templatesv1.TemplateInstance) { ti.Finalizers = nil }),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a")},
		remains:  []string{"a"},
	}, {
		name:     "an instance without a requester deletes nothing",
		instance: newInstance("shop", twoObjects, func(ti *templatesv1.TemplateInstance) { ti.Spec.Requester = nil }),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a")},
		released: true, remains: []string{"a"},
	}, {
		name:     "objects someone else made under the names are kept",
		instance: newInstance("shop", twoObjects),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a", unlabelled), member("ConfigMap", "b", "uid-other")},
		actions:  []string{"get configmaps demo/b", "get configmaps demo/a"}, released: true, remains: []string{"a", "b"},
	}, {
		name: "objects already gone, of a kind no longer served, or of no valid apiVersion",
		instance: newInstance("shop", deleted(ref("ConfigMap", "gone", "uid-g"),
			templatesv1.TemplateInstanceObject{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "demo", Name: "w"},
			templatesv1.TemplateInstanceObject{APIVersion: "a/b/c", Kind: "Widget", Namespace: "demo", Name: "x"})),
		actions: []string{"get configmaps demo/gone"}, released: true,
	}, {
		name:     "an object that goes between the read and the delete",
		instance: newInstance("shop", deleted(ref("ConfigMap", "a", "uid-a"))),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a")},
		setup: func(f *fixture) {
			failWith(f.target, "delete", "configmaps", false, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "a"))
		},
		actions: []string{"get configmaps demo/a", "delete configmaps demo/a"}, released: true, remains: []string{"a"},
	}, {
		name:     "the requester may no longer read an object",
		instance: newInstance("shop", deleted(ref("ConfigMap", "a", "uid-a"))),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a")},
		setup: func(f *fixture) {
			failWith(f.target, "get", "configmaps", false, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "a", errors.New("RBAC: no binding")))
		},
		actions: []string{"get configmaps demo/a"}, reason: "DeleteFailed", remains: []string{"a"},
	}, {
		name:     "the cluster fails a read",
		instance: newInstance("shop", deleted(ref("ConfigMap", "a", "uid-a"))),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a")},
		setup: func(f *fixture) {
			failWith(f.target, "get", "configmaps", false, apierrors.NewServiceUnavailable("try later"))
		},
		actions: []string{"get configmaps demo/a"}, reason: "ClusterError", remains: []string{"a"},
	}, {
		name:     "the cluster fails a delete",
		instance: newInstance("shop", deleted(ref("ConfigMap", "a", "uid-a"))),
		live:     []runtime.Object{member("ConfigMap", "a", "uid-a")},
		setup: func(f *fixture) {
			failWith(f.target, "delete", "configmaps", false, apierrors.NewInternalError(errors.New("boom")))
		},
		actions: []string{"get configmaps demo/a", "delete configmaps demo/a"}, reason: "ClusterError", remains: []string{"a"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{tc.instance}, live: tc.live}).build()
			if tc.setup != nil {
				tc.setup(f)
			}
			_, err := f.sync("shop")
			if got := joined(f.targetActions()); got != joined(tc.actions) {
				t.Errorf("target actions\n%s\nwant\n%s", got, joined(tc.actions))
			}
			ti := f.instance("shop")
			if hasFinalizer(ti) == tc.released && tc.instance.Finalizers != nil {
				t.Errorf("finalizer present %v, want released %v", hasFinalizer(ti), tc.released)
			}
			if tc.reason != "" {
				if !errors.Is(err, errRetry) || lastCondition(ti, templatesv1.TemplateInstanceFailed).Reason != tc.reason {
					t.Errorf("sync %v, Failed %+v; want %s", err, lastCondition(ti, templatesv1.TemplateInstanceFailed), tc.reason)
				}
			} else if err != nil {
				t.Errorf("sync: %v", err)
			}
			for _, name := range tc.remains {
				if f.liveObject("configmaps", "demo", name) == nil {
					t.Errorf("ConfigMap %s was deleted", name)
				}
			}
			if tc.check != nil {
				tc.check(t, f)
			}
			if tc.released && len(tc.remains) == 0 && len(tc.live) > 0 {
				for _, u := range tc.live {
					u := u.(*unstructured.Unstructured)
					if f.liveObject(map[string]string{"ConfigMap": "configmaps", "Secret": "secrets"}[u.GetKind()], "demo", u.GetName()) != nil {
						t.Errorf("%s %s is still there", u.GetKind(), u.GetName())
					}
				}
			}
		})
	}
}
