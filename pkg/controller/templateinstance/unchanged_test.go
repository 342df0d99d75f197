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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// onRevisionTwo is Template app at revision 2, with a generated PASSWORD that no object uses
// (a rotation changes the kept values, not the objects' hash).
func onRevisionTwo(objects ...string) *templatesv1.Template {
	t := newTemplate("app", objects...)
	t.Parameters = []templatesv1.Parameter{{Name: "PASSWORD", Generate: "expression", From: "[a-z]{12}"}}
	t.Revision = &templatesv1.RevisionStamp{Number: 2, Hash: "sha256:two"}
	return t
}

// appliedOnRevisionOne has the controller apply instance shop of Template app, then records
// it as applied on revision 1 with the same hash: as if revision 2 were new and rendered what
// revision 1 did. The fakes' actions are cleared.
func appliedOnRevisionOne(t *testing.T) *fixture {
	t.Helper()
	f := (&fixture{t: t, objects: []runtime.Object{onRevisionTwo(configMap, serviceAccount), newInstance("shop")}}).build()
	if _, err := f.sync("shop"); err != nil {
		t.Fatalf("first pass: %v", err)
	}
	ti := f.instance("shop")
	if r := ti.Status.TemplateRevision; r == nil || r.Number != 2 || len(ti.Status.Objects) != 2 || ti.Status.Objects[0].ResourceVersion == "" {
		t.Fatalf("the first pass recorded %+v, objects %+v", ti.Status.TemplateRevision, ti.Status.Objects)
	}
	ti.Status.TemplateRevision.Number = 1
	if err := f.instances.Tracker().Update(instancesResource, ti, "demo"); err != nil {
		t.Fatal(err)
	}
	f.target.ClearActions()
	f.instances.ClearActions()
	return f
}

const serviceAccount = `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"runner"}}`

// applies are the real applies the controller made in the target.
func applies(f *fixture) []string {
	var out []string
	for _, a := range f.targetActions() {
		if strings.HasPrefix(a, "apply ") || strings.HasPrefix(a, "dry-run ") {
			out = append(out, a)
		}
	}
	return out
}

// TestUnchangedRenderAppliesNothing: an instance moved to a revision that renders what it
// applied, to objects nobody changed, applies nothing, dry-runs nothing, reads each object
// once as the requester, and records the new revision with the same hash, Ready.
func TestUnchangedRenderAppliesNothing(t *testing.T) {
	f := appliedOnRevisionOne(t)
	before := f.instance("shop").Status
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := applies(f); len(got) > 0 {
		t.Errorf("a pass that changes nothing wrote to the target:\n%s", joined(got))
	}
	want := "get secrets demo/shop-generated\nget configmaps demo/config\nget serviceaccounts demo/runner"
	if got := joined(f.targetActions()); got != want {
		t.Errorf("target actions\n%s\nwant\n%s", got, want)
	}
	ti := f.instance("shop")
	r := ti.Status.TemplateRevision
	if r == nil || r.Number != 2 || r.AppliedHash != before.TemplateRevision.AppliedHash || r.Generation != ti.Generation {
		t.Errorf("recorded %+v, want revision 2 with hash %s", r, before.TemplateRevision.AppliedHash)
	}
	if c := lastCondition(ti, templatesv1.TemplateInstanceReady); c.Status != "True" {
		t.Errorf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
	}
	if c := lastCondition(ti, templatesv1.TemplateInstanceRevisionReconciled); c.Status != "True" || c.Message != "runs revision 2 of Template app" {
		t.Errorf("RevisionReconciled %s %s: %s", c.Status, c.Reason, c.Message)
	}
	for i, o := range ti.Status.Objects {
		if o != before.Objects[i] {
			t.Errorf("object %d recorded %+v, was %+v", i, o, before.Objects[i])
		}
	}
}

// TestUnchangedRenderStillCorrects is the hostile side: whatever would make the full pass do
// something (an object edited, deleted or re-made behind the instance's back, a right taken
// from the requester or from the new revision's author, a rotation asked for, the kept values
// lost) is never skipped because the hash is the same.
func TestUnchangedRenderStillCorrects(t *testing.T) {
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cases := []struct {
		name string
		// change is what happened after the first apply.
		change func(t *testing.T, f *fixture)
		// applied says the pass applies (the ConfigMap, or for a rotation the values' Secret);
		// reason is Ready's reason after it.
		applied string
		reason  string
	}{{
		name: "a field edited by someone else is applied back",
		change: func(t *testing.T, f *fixture) {
			live := f.liveObject("configmaps", "demo", "config")
			_ = unstructured.SetNestedField(live.Object, "edited", "data", "k")
			live.SetResourceVersion("999")
			if err := f.target.Tracker().Update(configMaps, live, "demo"); err != nil {
				t.Fatal(err)
			}
		},
		applied: "apply configmaps demo/config", reason: "Ready",
	}, {
		name: "a label removed, the content the same, is applied back",
		change: func(t *testing.T, f *fixture) {
			live := f.liveObject("configmaps", "demo", "config")
			live.SetLabels(nil)
			live.SetResourceVersion("1000")
			if err := f.target.Tracker().Update(configMaps, live, "demo"); err != nil {
				t.Fatal(err)
			}
		},
		// Without its label the object is no longer the instance's: the full pass refuses to
		// adopt it, as it would without the skip.
		reason: "DryRunFailed",
	}, {
		name: "an object deleted is applied again",
		change: func(t *testing.T, f *fixture) {
			if err := f.target.Tracker().Delete(configMaps, "demo", "config"); err != nil {
				t.Fatal(err)
			}
		},
		applied: "apply configmaps demo/config", reason: "Ready",
	}, {
		name:   "the requester may no longer patch: refused, not skipped",
		change: func(t *testing.T, f *fixture) { f.authz.Deny = refuse("alice", "patch", "configmaps") },
		reason: "Forbidden",
	}, {
		name: "the new revision's author may not create the objects: refused, not skipped",
		change: func(t *testing.T, f *fixture) {
			app := onRevisionTwo(configMap, serviceAccount)
			app.Author = &templatesv1.TemplateAuthor{Username: "mallory"}
			if err := f.instances.Tracker().Update(templatesv1.SchemeGroupVersion.WithResource("templates"), app, "demo"); err != nil {
				t.Fatal(err)
			}
			f.authz.Deny = refuse("mallory", "create", "serviceaccounts")
		},
		reason: "AuthorForbidden",
	}, {
		name: "a rotation asked for stores new values",
		change: func(t *testing.T, f *fixture) {
			ti := f.instance("shop")
			ti.Annotations = map[string]string{templatesv1.AnnotationRotateGeneratedParameters: "PASSWORD"}
			if err := f.instances.Tracker().Update(instancesResource, ti, "demo"); err != nil {
				t.Fatal(err)
			}
		},
		applied: "apply secrets demo/shop-generated", reason: "Ready",
	}, {
		name: "the kept values deleted are generated and stored again",
		change: func(t *testing.T, f *fixture) {
			if err := f.target.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, "demo", "shop-generated"); err != nil {
				t.Fatal(err)
			}
		},
		applied: "apply secrets demo/shop-generated", reason: "Ready",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := appliedOnRevisionOne(t)
			tc.change(t, f)
			_, _ = f.sync("shop")
			got := applies(f)
			if tc.applied == "" && len(got) > 0 && strings.HasPrefix(got[len(got)-1], "apply ") {
				t.Errorf("a refused pass applied:\n%s", joined(got))
			}
			if tc.applied != "" && !strings.Contains(joined(got), tc.applied) {
				t.Errorf("applied\n%s\nwant %s", joined(got), tc.applied)
			}
			ti := f.instance("shop")
			if c := lastCondition(ti, templatesv1.TemplateInstanceReady); c.Reason != tc.reason {
				t.Errorf("Ready %s %s: %s; want reason %s", c.Status, c.Reason, c.Message, tc.reason)
			}
			if tc.applied == "apply configmaps demo/config" && appliedValue(f) != "v" {
				t.Errorf("the ConfigMap holds %q after the pass, want v", appliedValue(f))
			}
		})
	}
}
