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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// configMapOf is the ConfigMap "config" holding value.
func configMapOf(value string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"` + value + `"}}`
}

// revisions returns Template app whose content, by revision number, is a ConfigMap holding
// values[n-1], at the last revision, with every revision stored as the server writes it; each
// revision's author is authors[n-1], or alice.
func revisions(t *testing.T, values []string, authors ...string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	var app *templatesv1.Template
	for i, v := range values {
		n := int64(i + 1)
		app = newTemplate("app", configMapOf(v))
		if i < len(authors) {
			app.Author = &templatesv1.TemplateAuthor{Username: authors[i]}
		}
		internal := &templates.Template{}
		if err := templatesv1.Convert_v1alpha1_Template_To_templates_Template(app, internal, nil); err != nil {
			t.Fatal(err)
		}
		content, hash, err := templaterevision.Canonical(internal)
		if err != nil {
			t.Fatal(err)
		}
		app.Revision = &templatesv1.RevisionStamp{Number: n, Hash: hash}
		out = append(out, &templatesv1.TemplateRevision{
			ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: templatesv1.RevisionName("app", n), UID: types.UID("rev-" + v), ResourceVersion: "1"},
			Template:   "app", Revision: n, Hash: hash, Author: app.Author.DeepCopy(), Content: runtime.RawExtension{Raw: content},
		})
	}
	return append(out, app)
}

// withRollout gives the Template of objects (the last) a rollout in waves whose status is st.
func withRollout(objects []runtime.Object, st *templatesv1.RolloutStatus) []runtime.Object {
	app := objects[len(objects)-1].(*templatesv1.Template)
	app.Rollout = &templatesv1.Rollout{Waves: []intstr.IntOrString{intstr.FromInt32(1)}}
	app.Status = &templatesv1.TemplateStatus{Rollout: st}
	return objects
}

// moved marks the instance as a rollout's wave does.
func moved(mark string) func(*templatesv1.TemplateInstance) {
	return func(ti *templatesv1.TemplateInstance) {
		ti.Annotations = map[string]string{templatesv1.AnnotationRolloutMoved: mark}
	}
}

// appliedValue is the value of ConfigMap config in the target, "" when it does not exist.
func appliedValue(f *fixture) string {
	live := f.liveObject("configmaps", "demo", "config")
	if live == nil {
		return ""
	}
	v, _, _ := unstructured.NestedString(live.Object, "data", "k")
	return v
}

// TestRevisions: an Automatic instance moves to the Template's new revision and records it;
// a Manual one stays on its revision until its spec changes; a pinned one renders the pinned
// revision's content, whose author the authorization rule checks, whatever the Template holds.
func TestRevisions(t *testing.T) {
	three := func(t *testing.T, authors ...string) []runtime.Object {
		return revisions(t, []string{"one", "two", "three"}, authors...)
	}
	cases := []struct {
		name     string
		objects  func(t *testing.T) []runtime.Object
		instance *templatesv1.TemplateInstance
		deny     func(authorizer.Attributes) bool
		// applied is the value applied, "" for none; revision the number recorded after.
		applied   string
		revision  int64
		condition string
	}{{
		name:     "Automatic moves to the Template's revision",
		objects:  func(t *testing.T) []runtime.Object { return three(t) },
		instance: newInstance("shop", onRevision(1)),
		applied:  "three", revision: 3, condition: "True Reconciled runs revision 3 of Template app",
	}, {
		name:     "Manual stays on its revision while the spec is the same",
		objects:  func(t *testing.T) []runtime.Object { return three(t) },
		instance: newInstance("shop", onRevision(1), func(ti *templatesv1.TemplateInstance) { ti.Spec.UpdatePolicy = templatesv1.UpdatePolicyManual }),
		applied:  "", revision: 1, condition: "True Reconciled runs revision 1 of Template app (Manual); the Template is at revision 3",
	}, {
		name:    "Manual moves to the Template's revision when its spec changes",
		objects: func(t *testing.T) []runtime.Object { return three(t) },
		instance: newInstance("shop", onRevision(1), func(ti *templatesv1.TemplateInstance) {
			ti.Spec.UpdatePolicy, ti.Generation = templatesv1.UpdatePolicyManual, 2
		}),
		applied: "three", revision: 3, condition: "True Reconciled runs revision 3 of Template app",
	}, {
		name:     "a pin renders the pinned revision",
		objects:  func(t *testing.T) []runtime.Object { return three(t) },
		instance: newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Revision = 2 }),
		applied:  "two", revision: 2, condition: "True Reconciled runs revision 2 of Template app (pinned); the Template is at revision 3",
	}, {
		name:     "a pinned revision is applied only if its own author may",
		objects:  func(t *testing.T) []runtime.Object { return three(t, "alice", "mallory", "alice") },
		instance: newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Revision = 2 }),
		deny:     refuse("mallory", "create", "configmaps"),
		applied:  "", revision: 0, condition: "False AuthorForbidden runs no revision of Template app",
	}, {
		name: "Automatic stays on its revision while the Template's rollout has not moved it",
		objects: func(t *testing.T) []runtime.Object {
			return withRollout(three(t), &templatesv1.RolloutStatus{Revision: 3, Phase: templatesv1.RolloutPaused, Moved: []string{"shop"}, MovedCount: 1})
		},
		// The status's names are for people: the instance's own mark says whether it moved.
		instance: newInstance("shop", onRevision(1), moved("2/1/t-app")),
		applied:  "", revision: 1, condition: "True Reconciled runs revision 1 of Template app (not moved yet by the Template's rollout); the Template is at revision 3",
	}, {
		name: "Automatic moves once the rollout moved it",
		objects: func(t *testing.T) []runtime.Object {
			return withRollout(three(t), &templatesv1.RolloutStatus{Revision: 3, Phase: templatesv1.RolloutProgressing, MovedCount: 1})
		},
		instance: newInstance("shop", onRevision(1), moved("3/1/t-app")),
		applied:  "three", revision: 3, condition: "True Reconciled runs revision 3 of Template app",
	}, {
		name: "an Automatic instance applies only what the rollout's author may create too",
		objects: func(t *testing.T) []runtime.Object {
			objects := withRollout(three(t), &templatesv1.RolloutStatus{Revision: 3, Phase: templatesv1.RolloutComplete})
			objects[len(objects)-1].(*templatesv1.Template).RolloutAuthor = &templatesv1.TemplateAuthor{Username: "mallory"}
			return objects
		},
		instance: newInstance("shop", onRevision(1)),
		deny:     refuse("mallory", "patch", "configmaps"),
		applied:  "", revision: 1, condition: "False AuthorForbidden",
	}, {
		name: "a pinned instance does not follow the rollout, nor its author",
		objects: func(t *testing.T) []runtime.Object {
			objects := withRollout(three(t), &templatesv1.RolloutStatus{Revision: 3, Phase: templatesv1.RolloutComplete})
			objects[len(objects)-1].(*templatesv1.Template).RolloutAuthor = &templatesv1.TemplateAuthor{Username: "mallory"}
			return objects
		},
		instance: newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Revision = 2 }),
		deny:     refuse("mallory", "patch", "configmaps"),
		applied:  "two", revision: 2, condition: "True Reconciled runs revision 2 of Template app (pinned)",
	}, {
		name:     "the Template's current author does not vouch for an old revision",
		objects:  func(t *testing.T) []runtime.Object { return three(t, "mallory", "alice", "alice") },
		instance: newInstance("shop", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Revision = 1 }),
		deny:     refuse("mallory", "create", "configmaps"),
		applied:  "", revision: 0, condition: "False AuthorForbidden",
	}}
	// Each case runs for an applied instance and for a published one (delivered through Flux):
	// the same revision rules, what is applied read from the live object or from the artifact.
	limits := artifact.DefaultLimits
	deliveries := []struct {
		name       string
		instance   func(*templatesv1.TemplateInstance)
		publishing *artifact.Limits
		value      func(*fixture) string
	}{
		{"applied", func(*templatesv1.TemplateInstance) {}, nil, appliedValue},
		{"published", published(""), &limits, publishedValue},
	}
	for _, tc := range cases {
		for _, d := range deliveries {
			t.Run(tc.name+"/"+d.name, func(t *testing.T) {
				ti := tc.instance.DeepCopy()
				d.instance(ti)
				f := (&fixture{t: t, objects: append(tc.objects(t), ti), deny: tc.deny, publishing: d.publishing}).build()
				checkRevisionCase(t, f, tc.applied, tc.revision, tc.condition, d.value)
			})
		}
	}
}

// checkRevisionCase syncs instance shop once and checks the value it applied or published
// (value reads it, "" for none), the revision it records and its RevisionReconciled condition.
func checkRevisionCase(t *testing.T, f *fixture, applied string, revision int64, condition string, value func(*fixture) string) {
	t.Helper()
	if _, err := f.sync("shop"); err != nil && revision != 0 && !strings.HasPrefix(condition, "False") {
		t.Fatalf("sync: %v", err)
	}
	if got := value(f); got != applied {
		t.Errorf("applied %q, want %q", got, applied)
	}
	ti := f.instance("shop")
	var got int64
	if r := ti.Status.TemplateRevision; r != nil {
		got = r.Number
		if applied != "" && (!strings.HasPrefix(r.AppliedHash, inventory.HashPrefix) || r.AppliedHash == "sha256:old" || r.Generation != ti.Generation) {
			t.Errorf("recorded %+v after applying generation %d", r, ti.Generation)
		}
	}
	if got != revision {
		t.Errorf("status.templateRevision %+v, want number %d", ti.Status.TemplateRevision, revision)
	}
	c := lastCondition(ti, templatesv1.TemplateInstanceRevisionReconciled)
	if line := string(c.Status) + " " + c.Reason + " " + c.Message; !strings.HasPrefix(line, condition) {
		t.Errorf("RevisionReconciled %q, want %q", line, condition)
	}
}

// TestRolloutAuthorReadsInputs (hostile): whoever chose when an Automatic instance moves (the
// Template's rollout author: a resume, a pause, an undo) must be allowed to read what it reads,
// as every author must: before, a user who may not read the instance's Secret could resume a
// rollout its author had paused and have the Secret's value written where that user reads it.
func TestRolloutAuthorReadsInputs(t *testing.T) {
	objects := withRollout(revisions(t, []string{"one", "two", "three"}), &templatesv1.RolloutStatus{Revision: 3, Phase: templatesv1.RolloutComplete})
	objects[len(objects)-1].(*templatesv1.Template).RolloutAuthor = &templatesv1.TemplateAuthor{Username: "mallory"}
	f := (&fixture{t: t, objects: append(objects, newInstance("shop", onRevision(1), fromSecret("db"))),
		live: []runtime.Object{valuesSecret("db", map[string]string{"VALUE": "s3cret"})}, deny: refuse("mallory", "get", "secrets")}).build()
	_, _ = f.sync("shop")
	c := meta.FindStatusCondition(f.instance("shop").Status.Conditions, templatesv1.TemplateInstanceFailed)
	if c == nil || c.Reason != "InputForbidden" || !strings.Contains(c.Message, "mallory, the author of Template demo/app's rollout, may not get Secret demo/db") {
		t.Fatalf("Failed %+v", c)
	}
	if got := appliedValue(f); got != "" {
		t.Errorf("applied %q", got)
	}
}
