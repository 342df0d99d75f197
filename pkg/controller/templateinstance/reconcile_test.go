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
	k8stesting "k8s.io/client-go/testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// mustSync syncs and fails the test on an error.
func (f *fixture) mustSync(name string) time.Duration {
	f.t.Helper()
	requeue, err := f.sync(name)
	if err != nil {
		f.t.Fatalf("sync: %v", err)
	}
	return requeue
}

// edit changes the stored instance as a user's update would, bumping its generation.
func (f *fixture) edit(name string, change func(*templatesv1.TemplateInstance)) {
	f.t.Helper()
	ti := f.instance(name).DeepCopy()
	change(ti)
	ti.Generation++
	if err := f.instances.Tracker().Update(instancesResource, ti, "demo"); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) clearActions() {
	f.instances.ClearActions()
	f.target.ClearActions()
}

// TestReconcileAddsFinalizerFirst: nothing is applied before the instance holds the finalizer
// that uninstalls it.
func TestReconcileAddsFinalizerFirst(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap),
		newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Finalizers = nil })}}).build()
	f.mustSync("shop")
	var verbs []string
	for _, a := range f.instances.Actions() {
		verbs = append(verbs, a.GetVerb()+" "+a.GetSubresource())
	}
	if want := "update \nupdate status\nupdate status"; joined(verbs) != want {
		t.Errorf("instance writes\n%s\nwant\n%s", joined(verbs), want)
	}
	if !hasFinalizer(f.instance("shop")) {
		t.Error("no finalizer")
	}
}

// TestReconcileUpgrade: a new version of the Template or of the spec is applied, and what it
// no longer renders is pruned in reverse order, after the requester and the author were asked
// about the deletes; the inventory written before the apply holds the old and the new objects.
func TestReconcileUpgrade(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newInstance("shop"),
		newTemplate("app", configMap, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"old1"}}`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"old2"}}`)}}).build()
	f.mustSync("shop")

	f.clearActions()
	f.mustSync("shop")
	if slices.ContainsFunc(f.targetActions(), func(a string) bool { return strings.HasPrefix(a, "apply") }) {
		t.Fatalf("nothing changed, yet the sync applied: %v", f.targetActions())
	}

	upgraded := newTemplate("app", configMap, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}`)
	upgraded.ResourceVersion = "8"
	upgraded.Author.Username = "bob"
	if err := f.instances.Tracker().Update(templatesv1.SchemeGroupVersion.WithResource("templates"), upgraded, "demo"); err != nil {
		t.Fatal(err)
	}
	f.clearActions()
	f.authz.Reset()
	f.mustSync("shop")
	for _, want := range []string{"alice delete configmaps demo/old1", "bob delete configmaps demo/old2", "bob create configmaps demo/new"} {
		if !slices.Contains(f.authz.Asked(), want) {
			t.Errorf("not asked: %s", want)
		}
	}
	var applied []string
	for _, a := range f.targetActions() {
		if strings.HasPrefix(a, "apply ") || strings.HasPrefix(a, "delete ") {
			applied = append(applied, a)
		}
	}
	want := "apply configmaps demo/config\napply configmaps demo/new\ndelete configmaps demo/old2\ndelete configmaps demo/old1"
	if joined(applied) != want {
		t.Errorf("writes\n%s\nwant\n%s", joined(applied), want)
	}
	var inventories []string
	for _, a := range f.instances.Actions() {
		if a.GetSubresource() == "status" {
			var names []string
			for _, o := range a.(k8stesting.UpdateAction).GetObject().(*templatesv1.TemplateInstance).Status.Objects {
				names = append(names, o.Name)
			}
			inventories = append(inventories, strings.Join(names, ","))
		}
	}
	if want := "config,old1,old2,new\nconfig,new"; joined(inventories) != want {
		t.Errorf("inventories written\n%s\nwant\n%s", joined(inventories), want)
	}
	if ti := f.instance("shop"); ti.Status.TemplateResourceVersion != "8" {
		t.Errorf("template version %q", ti.Status.TemplateResourceVersion)
	}

	// A change of the spec is a new pass too.
	f.edit("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.Labels = map[string]string{"team": "a"} })
	f.clearActions()
	f.mustSync("shop")
	if got := f.liveObject("configmaps", "demo", "new").GetLabels(); got["team"] != "a" || got[inventory.PartOfLabel] != inventory.ApplySetID("demo", "shop") {
		t.Errorf("labels after the spec change: %v", got)
	}
}

// TestReconcileGeneratedValues: generated values are stored first, kept across passes, and
// generated anew only for the parameters a rotation names, whose annotation then goes.
func TestReconcileGeneratedValues(t *testing.T) {
	tpl := newTemplate("app", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"a":"${A}","b":"${B}"}}`)
	tpl.Parameters = []templatesv1.Parameter{{Name: "A", Generate: "expression", From: "[a-z]{16}"}, {Name: "B", Generate: "expression", From: "[a-z]{16}"}}
	f := (&fixture{t: t, objects: []runtime.Object{tpl, newInstance("shop")}}).build()
	values := func() (string, string) {
		data, _, _ := unstructured.NestedStringMap(f.liveObject("configmaps", "demo", "config").Object, "data")
		return data["a"], data["b"]
	}
	f.mustSync("shop")
	if applied := f.targetActions(); !strings.HasPrefix(joined(applied), "get secrets demo/shop-generated\nget secrets demo/shop-generated\n") {
		t.Errorf("the generated values are not the first object: %v", applied)
	}
	if s := f.liveObject("secrets", "demo", "shop-generated"); s == nil || len(s.GetOwnerReferences()) != 1 {
		t.Fatalf("generated-values Secret: %v", s)
	}
	if ti := f.instance("shop"); ti.Status.GeneratedParametersSecret != "shop-generated" || len(ti.Status.Objects) != 1 {
		t.Errorf("status: secret %q, inventory %+v (the Secret is no member)", ti.Status.GeneratedParametersSecret, ti.Status.Objects)
	}
	a1, b1 := values()
	if len(a1) != 16 || len(b1) != 16 {
		t.Fatalf("values %q %q", a1, b1)
	}

	f.edit("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.Labels = map[string]string{"x": "y"} })
	f.mustSync("shop")
	if a2, b2 := values(); a2 != a1 || b2 != b1 {
		t.Errorf("an upgrade generated new values: %q %q, were %q %q", a2, b2, a1, b1)
	}

	f.edit("shop", func(ti *templatesv1.TemplateInstance) {
		ti.Annotations = map[string]string{templatesv1.AnnotationRotateGeneratedParameters: "B"}
	})
	f.clearActions()
	f.mustSync("shop")
	if a3, b3 := values(); a3 != a1 || b3 == b1 {
		t.Errorf("rotating B: %q %q, were %q %q", a3, b3, a1, b1)
	}
	if ti := f.instance("shop"); ti.Annotations[templatesv1.AnnotationRotateGeneratedParameters] != "" {
		t.Error("the rotation request stayed")
	}
	f.clearActions()
	f.mustSync("shop")
	if slices.ContainsFunc(f.targetActions(), func(a string) bool { return strings.HasPrefix(a, "apply") }) {
		t.Errorf("the rotation was done, yet the next sync applied: %v", f.targetActions())
	}
}

// TestReconcileAuthorOfImport: the author of every imported Template must be allowed the
// objects too.
func TestReconcileAuthorOfImport(t *testing.T) {
	base := newTemplate("base")
	base.Author.Username = "bob"
	base.Transformers = []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"team"},"labels":{"team":"a"}}`)}}
	app := newTemplate("app", configMap)
	app.TransformersFrom = []templatesv1.TransformerImport{{Name: "base"}}
	f := (&fixture{t: t, objects: []runtime.Object{base, app, newInstance("shop")}, deny: refuse("bob", "patch", "configmaps")}).build()
	if _, err := f.sync("shop"); !errors.Is(err, errRetry) {
		t.Fatalf("sync: %v", err)
	}
	failed := lastCondition(f.instance("shop"), templatesv1.TemplateInstanceFailed)
	if failed.Reason != "AuthorForbidden" || !strings.Contains(failed.Message, "bob, the author of Template demo/base, may not patch it") {
		t.Errorf("Failed: %s: %s", failed.Reason, failed.Message)
	}
}

// TestReconcileConflict: a conflict of the controller's own write is returned as it is, for
// the queue's quick retry, and not reported as the instance's failure.
func TestReconcileConflict(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop")}}).build()
	f.instances.PrependReactor("update", "templateinstances", func(action k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(templatesv1.Resource("templateinstances"), "shop", errors.New("the object has been modified"))
	})
	if _, err := f.sync("shop"); !apierrors.IsConflict(err) {
		t.Fatalf("sync: %v, want the conflict", err)
	}
	if len(f.instance("shop").Status.Conditions) != 0 {
		t.Error("a conflict was written as a condition")
	}
}

// TestStatusWriteFails: a status that cannot be written is returned as the error to retry,
// whatever the pass was going to report.
func TestStatusWriteFails(t *testing.T) {
	for _, tc := range []struct {
		name     string
		instance *templatesv1.TemplateInstance
		live     []runtime.Object
	}{
		{"a failure", newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Name = "missing" }), nil},
		{"the inventory before the apply", newInstance("shop"), nil},
		{"an uninstall that waits", newInstance("shop", deleted(ref("ConfigMap", "config", "uid-1"))),
			[]runtime.Object{member("ConfigMap", "config", "uid-1", terminating)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), tc.instance}, live: tc.live}).build()
			f.instances.PrependReactor("update", "templateinstances", func(action k8stesting.Action) (bool, runtime.Object, error) {
				if action.GetSubresource() != "status" {
					return false, nil, nil
				}
				return true, nil, apierrors.NewServiceUnavailable("try later")
			})
			_, err := f.sync("shop")
			if !apierrors.IsServiceUnavailable(err) {
				t.Errorf("sync: %v", err)
			}
			if slices.ContainsFunc(f.targetActions(), func(a string) bool { return strings.HasPrefix(a, "apply ") }) {
				t.Errorf("applied without an inventory: %v", f.targetActions())
			}
		})
	}
}

// TestConditionMessagesAreBounded: a message that would not fit a condition is cut.
func TestConditionMessagesAreBounded(t *testing.T) {
	ti := newInstance("shop")
	set(ti, templatesv1.TemplateInstanceFailed, "True", "DryRunFailed", strings.Repeat("x", 40000))
	if got := len(lastCondition(ti, templatesv1.TemplateInstanceFailed).Message); got != 32003 {
		t.Errorf("message of %d bytes", got)
	}
}

// failingAppliers cannot make the clients of any requester.
type failingAppliers struct{}

func (failingAppliers) For(*templatesv1.TemplateInstanceRequester) (instance.Applier, error) {
	return nil, errors.New("no clients")
}

// TestNoClients: without the requester's clients nothing is done, and the sync is retried;
// neither is a finalizer that cannot be added.
func TestNoClients(t *testing.T) {
	for _, tc := range []struct {
		name     string
		instance *templatesv1.TemplateInstance
		setup    func(f *fixture)
	}{
		{"reconcile", newInstance("shop"), func(f *fixture) { f.c.cfg.Appliers = failingAppliers{} }},
		{"uninstall", newInstance("shop", deleted(ref("ConfigMap", "config", "uid-1"))), func(f *fixture) { f.c.cfg.Appliers = failingAppliers{} }},
		{"the finalizer", newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Finalizers = nil }), func(f *fixture) {
			f.instances.PrependReactor("update", "templateinstances", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("no clients")
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), tc.instance}}).build()
			tc.setup(f)
			if _, err := f.sync("shop"); err == nil || err.Error() != "no clients" {
				t.Errorf("sync: %v", err)
			}
			if len(f.target.Actions()) != 0 || len(f.statusReasons()) != 0 {
				t.Errorf("acted without clients: %v %v", f.targetActions(), f.statusReasons())
			}
		})
	}
}
