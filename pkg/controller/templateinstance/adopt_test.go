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
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8stesting "k8s.io/client-go/testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// TestAdoptionReasons drives an adopting instance into every reason adoption writes. The
// fake target's server-side apply replaces objects whole and keeps no managed fields: what
// the takeover does to field ownership is proven against a real kube-apiserver (test/e2e).
func TestAdoptionReasons(t *testing.T) {
	for _, tc := range adoptionReasonCases() {
		t.Run(tc.name, tc.run)
	}
}

// unowned is a live object of the target that no instance applied, labelled app=web.
func unowned(kind, name, uid string) *unstructured.Unstructured {
	u := member(kind, name, uid)
	u.SetLabels(map[string]string{"app": "web"})
	u.SetResourceVersion("1")
	return u
}

func adoptingInstance(a templatesv1.TemplateInstanceAdoption) *templatesv1.TemplateInstance {
	return newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.Adoption = &a })
}

func adoptionReasonCases() []reasonCase {
	selected := templatesv1.TemplateInstanceAdoption{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	untouched := func(t *testing.T, f *fixture) {
		for _, a := range f.target.Actions() {
			if p, ok := a.(k8stesting.PatchActionImpl); ok && len(p.PatchOptions.DryRun) > 0 {
				continue
			}
			switch a.GetVerb() {
			case "patch", "delete", "create", "update":
				t.Errorf("a refused adoption wrote to the target: %s %s", a.GetVerb(), a.GetResource().Resource)
			}
		}
	}
	return []reasonCase{{
		name:    "an adoption takes the selected object over and is done",
		objects: []runtime.Object{newTemplate("app", configMap), adoptingInstance(selected)},
		live:    []runtime.Object{unowned("ConfigMap", "config", "uid-c")},
		reasons: []string{"Adopting", "Ready"}, message: "all 1 objects are ready",
		check: func(t *testing.T, f *fixture) {
			ti := f.instance("shop")
			adopted := lastCondition(ti, templatesv1.TemplateInstanceAdopted)
			if adopted.Status != metav1.ConditionTrue || ti.Status.Adoption == nil || ti.Status.Adoption.Phase != templatesv1.AdoptionAdopted ||
				len(ti.Status.Adoption.Objects) != 1 || ti.Status.Adoption.Objects[0].Action != templatesv1.AdoptionAdopt {
				t.Errorf("Adopted %+v, adoption %+v", adopted, ti.Status.Adoption)
			}
			live := f.liveObject("configmaps", "demo", "config")
			if live.GetUID() != "uid-c" || live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID("demo", "shop") {
				t.Errorf("the object was not taken over in place: %v", live)
			}
			if want := "list configmaps demo/\nget configmaps demo/config\ndry-run configmaps demo/config\npatch configmaps demo/config\nget configmaps demo/config\napply configmaps demo/config"; joined(f.targetActions()) != want {
				t.Errorf("target actions\n%s\nwant\n%s", joined(f.targetActions()), want)
			}
		},
	}, {
		name:    "an object the source claims and the template does not render refuses the adoption",
		objects: []runtime.Object{newTemplate("app", configMap), adoptingInstance(selected)},
		live:    []runtime.Object{unowned("ConfigMap", "config", "uid-c"), unowned("ConfigMap", "other", "uid-o")},
		reasons: []string{"AdoptionRefused"}, message: "nothing was touched; ConfigMap demo/other: the Template does not render it",
		check: func(t *testing.T, f *fixture) {
			untouched(t, f)
			if s := f.instance("shop").Status.Adoption; s == nil || s.Phase != templatesv1.AdoptionRefused || len(s.Objects) != 2 || s.Objects[1].Action != templatesv1.AdoptionRefuse {
				t.Errorf("adoption status %+v", s)
			}
		},
	}, {
		name:    "a selected object of another instance is refused, and nothing is touched",
		objects: []runtime.Object{newTemplate("app", configMap), adoptingInstance(selected)},
		live: []runtime.Object{func() *unstructured.Unstructured {
			u := unowned("ConfigMap", "config", "uid-c")
			u.SetLabels(map[string]string{"app": "web", inventory.PartOfLabel: inventory.ApplySetID("demo", "other")})
			return u
		}()},
		reasons: []string{"AdoptionRefused"}, message: "ConfigMap demo/config: it is a member of another apply set (" + inventory.ApplySetID("demo", "other") + ")",
		check: func(t *testing.T, f *fixture) {
			untouched(t, f)
			if live := f.liveObject("configmaps", "demo", "config"); live.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID("demo", "other") {
				t.Errorf("the other instance's object changed hands: %v", live.GetLabels())
			}
		},
	}, {
		name:    "a Helm release without a record",
		objects: []runtime.Object{newTemplate("app", configMap), adoptingInstance(templatesv1.TemplateInstanceAdoption{HelmRelease: "web"})},
		live:    []runtime.Object{member("Secret", "unrelated", "uid-s")},
		reasons: []string{"AdoptionSource"}, message: `Helm release "web" has no record in namespace demo`,
		check: untouched,
	}, {
		name:    "the cluster refuses the forced apply",
		objects: []runtime.Object{newTemplate("app", configMap), adoptingInstance(selected)},
		live:    []runtime.Object{unowned("ConfigMap", "config", "uid-c")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", false, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "config",
				field.ErrorList{field.Invalid(field.NewPath("data"), "", "refused by a webhook")}))
		},
		reasons: []string{"Adopting", "AdoptionFailed"}, message: "ConfigMap demo/config: ConfigMap \"config\" is invalid: data: Invalid value",
	}}
}

// TestPruneReleasesRetained: a revision that no longer renders a retained object leaves it
// in place, no longer the instance's, and out of the inventory.
func TestPruneReleasesRetained(t *testing.T) {
	reasonCase{
		objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop", func(ti *templatesv1.TemplateInstance) {
			ti.Status.Objects = []templatesv1.TemplateInstanceObject{retained(ref("ConfigMap", "old", "uid-old"))}
		})},
		live:    []runtime.Object{member("ConfigMap", "old", "uid-old")},
		reasons: []string{"Applying", "Ready"}, message: "all 1 objects are ready",
		check: func(t *testing.T, f *fixture) {
			old := f.liveObject("configmaps", "demo", "old")
			if old == nil || old.GetLabels()[inventory.PartOfLabel] != "" {
				t.Errorf("the retained object was deleted, or is still the instance's: %v", old)
			}
			if objects := f.instance("shop").Status.Objects; len(objects) != 1 || objects[0].Name != "config" {
				t.Errorf("inventory %+v", objects)
			}
			for _, a := range f.targetActions() {
				if strings.HasPrefix(a, "delete ") {
					t.Errorf("deleted: %s", a)
				}
			}
		},
	}.run(t)
}

// TestAdoptionNeverQuotesASecret: a refusal of the server that quotes a generated value (a
// password in a URL) reaches neither the Failed condition nor the plan in the status.
func TestAdoptionNeverQuotesASecret(t *testing.T) {
	app := newTemplate("app", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"leak"},"data":{"url":"db://u:${PASSWORD}@db"}}`)
	app.Parameters = []templatesv1.Parameter{{Name: "PASSWORD", Generate: "expression", From: "[a-z]{12}"}}
	reasonCase{
		objects: []runtime.Object{app, adoptingInstance(templatesv1.TemplateInstanceAdoption{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}})},
		live:    []runtime.Object{unowned("ConfigMap", "leak", "uid-l"), generatedValues("shop", "hunter2hunter2")},
		setup: func(f *fixture) {
			failWith(f.target, "patch", "configmaps", true, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "leak",
				field.ErrorList{field.Invalid(field.NewPath("data", "url"), "db://u:hunter2hunter2@db", "refused by a webhook")}))
		},
		reasons: []string{"AdoptionRefused"}, message: "data.url: Invalid value",
		check: func(t *testing.T, f *fixture) {
			ti := f.instance("shop")
			status := fmt.Sprintf("%+v %+v", ti.Status.Conditions, ti.Status.Adoption)
			if strings.Contains(status, "hunter2") || !strings.Contains(status, "refused by a webhook") {
				t.Errorf("the status quotes the password, or not the refusal: %s", status)
			}
		},
	}.run(t)
}
