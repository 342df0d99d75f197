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

package preview

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance/instancetest"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
	"stencil.dev/stencil/pkg/redact"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// The tests of the preview run it over instancetest's fakes: the instances and Templates in a
// fake clientset of this server's API, the Secrets and objects in a fake target cluster.
var (
	testMapper      = instancetest.Mapper
	refuse          = instancetest.Refuse
	newInstance     = instancetest.NewInstance
	newTemplate     = instancetest.NewTemplate
	onRevision      = instancetest.OnRevision
	ref             = instancetest.Ref
	fromSecret      = instancetest.FromSecret
	valuesSecret    = instancetest.ValuesSecret
	generatedValues = instancetest.GeneratedValues
	testHashKey     = instancetest.HashKey
)

// fixture is a preview's parts over fakes.
type fixture struct {
	t *testing.T
	// objects are the TemplateInstances and Templates of this server's API; live are the
	// objects of the target cluster; deny refuses the authorizer's questions.
	objects, live []runtime.Object
	deny          func(authorizer.Attributes) bool
	*instancetest.Fakes
}

func (f *fixture) build() *fixture {
	f.Fakes = instancetest.NewFakes(f.objects, f.live, f.deny)
	return f
}

// trackerInstances lists the instances of the fake clientset, as the server lists storage.
type trackerInstances struct{ f *fixture }

func (l trackerInstances) List(ctx context.Context, namespace string) ([]*templatesv1.TemplateInstance, error) {
	list, err := l.f.Instances.TemplatesV1alpha1().TemplateInstances(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*templatesv1.TemplateInstance, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// previewer is a Previewer over the fixture's fakes.
func (f *fixture) previewer() *Previewer {
	return New(Config{Templates: f.Templates, Instances: trackerInstances{f}, Renderer: f.Renderer,
		Appliers: f.Appliers, Mapper: testMapper(), Authorizer: f.Authorizer(),
		Memory: renderrest.NewBudget(64<<20, 32<<20, nil), HashKey: testHashKey})
}

// valueTemplate is Template app at revision 1: a ConfigMap holding parameter VALUE (default
// dflt), a Secret and a ConfigMap holding a generated PASSWORD.
func valueTemplate(t *testing.T, dflt string, edit func(*templatesv1.Template)) *templatesv1.Template {
	t.Helper()
	app := newTemplate("app",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"config"},"data":{"k":"${VALUE}"}}`,
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"auth"},"stringData":{"password":"${PASSWORD}"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"leak"},"data":{"url":"db://u:${PASSWORD}@db"}}`)
	app.Parameters = []templatesv1.Parameter{{Name: "VALUE", Value: dflt},
		{Name: "PASSWORD", Generate: "expression", From: "[a-z]{12}"}}
	if edit != nil {
		edit(app)
	}
	internal := &templates.Template{}
	if err := templatesv1.Convert_v1alpha1_Template_To_templates_Template(app, internal, nil); err != nil {
		t.Fatal(err)
	}
	_, hash, err := templaterevision.Canonical(internal)
	if err != nil {
		t.Fatal(err)
	}
	app.Revision = &templatesv1.RevisionStamp{Number: 1, Hash: hash}
	return app
}

// candidateOf is the internal candidate of a v1alpha1 Template, stamped as the API stamps one.
func candidateOf(t *testing.T, v *templatesv1.Template) *templates.Template {
	t.Helper()
	c := &templates.Template{}
	if err := templatesv1.Convert_v1alpha1_Template_To_templates_Template(v, c, nil); err != nil {
		t.Fatal(err)
	}
	_, hash, err := templaterevision.Canonical(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Revision, c.Author, c.UID = &templates.RevisionStamp{Number: 2, Hash: hash}, &templates.TemplateAuthor{Username: "bob"}, types.UID("preview-"+hash[7:19])
	return c
}

// TestPreview: a candidate that changes a default and constrains the values classifies each
// instance by its own values (unchanged, changed, breaks its parameters); pinned and Manual
// instances are left out; a requester the rule refuses is Forbidden; generated values are the
// kept ones; the plan hash is stable and follows each instance's rendering.
func TestPreview(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	candidate := valueTemplate(t, "two", func(t *templatesv1.Template) {
		t.Parameters[0].Value, t.Parameters[0].Enum = "two", []string{"one", "two"}
	})
	with := func(values map[string]string, edits ...func(*templatesv1.TemplateInstance)) []func(*templatesv1.TemplateInstance) {
		return append([]func(*templatesv1.TemplateInstance){onRevision(1), func(ti *templatesv1.TemplateInstance) { ti.Spec.Parameters = values }}, edits...)
	}
	objects := []runtime.Object{stored,
		newInstance("a-default", with(nil)...),
		newInstance("b-explicit", with(map[string]string{"VALUE": "one"})...),
		newInstance("c-breaks", with(map[string]string{"VALUE": "three"})...),
		newInstance("d-pinned", with(nil, func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Revision = 1 })...),
		newInstance("e-manual", with(nil, func(ti *templatesv1.TemplateInstance) { ti.Spec.UpdatePolicy = templatesv1.UpdatePolicyManual })...),
		newInstance("f-mallory", with(map[string]string{"VALUE": "one"}, func(ti *templatesv1.TemplateInstance) { ti.Spec.Requester.Username = "mallory" })...),
	}
	live := []runtime.Object{generatedValues("a-default", "hunter2hunter2"), generatedValues("b-explicit", "correcthorse")}
	f := (&fixture{t: t, objects: objects, live: live, deny: refuse("mallory", "create", "configmaps")}).build()
	caller := &user.DefaultInfo{Name: "bob"}
	status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored), Candidate: candidateOf(t, candidate), Caller: caller})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]templates.InstancePreview{}
	var names []string
	for _, i := range status.Instances {
		got[i.Name] = i
		names = append(names, i.Name+"="+string(i.Classification))
	}
	if want := "a-default=Changed b-explicit=Unchanged c-breaks=BreaksParameters f-mallory=Forbidden"; strings.Join(names, " ") != want {
		t.Errorf("classified %s\nwant %s", strings.Join(names, " "), want)
	}
	if fmt.Sprint(status.Skipped) != "[{d-pinned Pinned} {e-manual Manual}]" {
		t.Errorf("skipped %v", status.Skipped)
	}
	a := got["a-default"]
	if len(a.Objects) != 1 || a.Objects[0].Name != "config" || len(a.Objects[0].Fields) != 1 ||
		a.Objects[0].Fields[0] != (templates.FieldChange{Path: ".data.k", Change: "Changed", Before: `"one"`, After: `"two"`}) {
		t.Errorf("a-default changes %+v", a.Objects)
	}
	if c := got["c-breaks"]; len(c.Causes) == 0 || !strings.Contains(c.Causes[0].Field, "parameters") {
		t.Errorf("c-breaks causes %+v (%s)", c.Causes, c.Message)
	}
	if m := got["f-mallory"].Message; !strings.Contains(m, "mallory may not create it") {
		t.Errorf("f-mallory: %s", m)
	}
	if status.Counts["Changed"] != 1 || status.Counts["BreaksParameters"] != 1 || status.Revision != 2 || !strings.HasPrefix(status.PlanHash, "sha256:") {
		t.Errorf("counts %v, revision %d, plan %s", status.Counts, status.Revision, status.PlanHash)
	}
	again, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored), Candidate: candidateOf(t, candidate), Caller: caller})
	if err != nil || again.PlanHash != status.PlanHash {
		t.Errorf("the same preview again: plan %s, want %s (%v)", again.PlanHash, status.PlanHash, err)
	}
}

// TestPreviewMasksSecrets (hostile): a caller who may not get a Secret an instance reads its
// values from learns nothing of the instance (Forbidden, no objects, no hash); a caller who
// may sees the changes with every secret value masked, and a Secret's data never.
func TestPreviewMasksSecrets(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	candidate := valueTemplate(t, "one", func(t *templatesv1.Template) {
		t.Objects[2].Raw = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"leak"},"data":{"url":"db2://u:${PASSWORD}@db"}}`)
		t.Objects[1].Raw = []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"auth"},"stringData":{"password":"${PASSWORD}x"}}`)
	})
	for _, tc := range []struct {
		name string
		deny func(authorizer.Attributes) bool
		want templates.PreviewClassification
	}{
		{"the caller may not get the Secret", refuse("bob", "get", "secrets"), templates.PreviewForbidden},
		{"the caller may get it", nil, templates.PreviewChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1))},
				live: []runtime.Object{generatedValues("shop", "hunter2hunter2")}, deny: tc.deny}).build()
			status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
				Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}})
			if err != nil {
				t.Fatal(err)
			}
			if answer := fmt.Sprintf("%+v", status); strings.Contains(answer, "hunter2hunter2") {
				t.Errorf("the generated password shows:\n%s", answer)
			}
			one := status.Instances[0]
			if one.Classification != tc.want {
				t.Fatalf("classified %s: %+v", one.Classification, one)
			}
			if tc.want == templates.PreviewForbidden {
				if len(one.Objects) > 0 || one.RenderedHash != "" || !strings.Contains(one.Message, "bob may not get Secret demo/shop-generated") {
					t.Errorf("a Forbidden instance shows %+v", one)
				}
				return
			}
			if !one.Masked || !strings.HasPrefix(one.RenderedHash, inventory.HashPrefix) {
				t.Errorf("masked %v, hash %s", one.Masked, one.RenderedHash)
			}
			for _, o := range one.Objects {
				if o.Kind == "Secret" && (o.Fields[0].Before != redact.Masked || o.Fields[0].After != redact.Masked) {
					t.Errorf("a Secret's data shows: %+v", o.Fields)
				}
			}
		})
	}
}

// TestPreviewPrunes: a candidate that drops an object the instance has would prune it.
func TestPreviewPrunes(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	candidate := valueTemplate(t, "one", func(t *templatesv1.Template) { t.Objects = t.Objects[:2] })
	f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1))},
		live: []runtime.Object{generatedValues("shop", "hunter2hunter2")}}).build()
	status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
		Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	one := status.Instances[0]
	if one.Classification != templates.PreviewWouldPrune || len(one.Objects) != 1 || one.Objects[0].Change != "Removed" || one.Objects[0].Name != "leak" {
		t.Errorf("%s: %+v", one.Classification, one.Objects)
	}
}

// TestPreviewReleasesRetained: a candidate that drops an object the instance retains would
// release it, not prune it.
func TestPreviewReleasesRetained(t *testing.T) {
	stored := valueTemplate(t, "one", func(t *templatesv1.Template) {
		t.Objects[2].Raw = []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"leak","annotations":{"templates.stencil.dev/lifecycle":"retain"}},"data":{"url":"db://u:${PASSWORD}@db"}}`)
	})
	candidate := valueTemplate(t, "one", func(t *templatesv1.Template) { t.Objects = t.Objects[:2] })
	f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1))},
		live: []runtime.Object{generatedValues("shop", "hunter2hunter2")}}).build()
	status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
		Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	one := status.Instances[0]
	if one.Classification != templates.PreviewChanged || len(one.Objects) != 1 || one.Objects[0].Change != ObjectReleased || one.Objects[0].Name != "leak" {
		t.Errorf("%s: %+v", one.Classification, one.Objects)
	}
}

// internalTemplate converts a Template of the fakes to the internal form the API hands over.
func internalTemplate(t *testing.T, v *templatesv1.Template) *templates.Template {
	t.Helper()
	out := &templates.Template{}
	if err := templatesv1.Convert_v1alpha1_Template_To_templates_Template(v, out, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPreviewLive: live, each candidate object is compared with what a server-side dry-run
// apply as the requester makes of the live one; an object someone else made fails the
// instance, as the controller's preflight would.
func TestPreviewLive(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	candidate := valueTemplate(t, "two", nil)
	owned := func(name string, data map[string]interface{}) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]interface{}{"namespace": "demo", "name": name, "uid": "u-" + name, "resourceVersion": "9"}, "data": data}}
		inventory.Label(u, inventory.ApplySetID("demo", "shop"))
		return u
	}
	for _, tc := range []struct {
		name  string
		live  []runtime.Object
		check func(t *testing.T, i templates.InstancePreview)
	}{{
		name: "owned objects",
		live: []runtime.Object{generatedValues("shop", "hunter2hunter2"),
			owned("config", map[string]interface{}{"k": "one"}), owned("leak", map[string]interface{}{"url": "db://u:hunter2hunter2@db"})},
		check: func(t *testing.T, i templates.InstancePreview) {
			var got []string
			for _, o := range i.Objects {
				got = append(got, o.Change+" "+o.Name)
			}
			if i.Classification != templates.PreviewChanged || strings.Join(got, ",") != "Changed config,Added auth" {
				t.Errorf("%s: %v", i.Classification, got)
			}
		},
	}, {
		name: "an object someone else made",
		live: []runtime.Object{generatedValues("shop", "hunter2hunter2"), &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"namespace": "demo", "name": "config"}}}},
		check: func(t *testing.T, i templates.InstancePreview) {
			if i.Classification != templates.PreviewFailed || !strings.Contains(i.Message, "ConfigMap demo/config: exists and was not created by this instance") {
				t.Errorf("%s: %s", i.Classification, i.Message)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1))}, live: tc.live}).build()
			status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
				Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}, Live: true})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, status.Instances[0])
			for _, a := range f.TargetActions() {
				if strings.HasPrefix(a, "apply ") || strings.HasPrefix(a, "delete ") {
					t.Errorf("a preview wrote to the target: %s", a)
				}
			}
		})
	}
}

// TestPreviewPublished: an instance delivered through Flux is previewed as its controller would
// publish it: a candidate holding a Secret it may not apply, or a secret value in an object the
// artifact would carry, fails it (SecretsNotPublished), the value masked; one without either
// is classified as an applied instance is.
func TestPreviewPublished(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	leaky := valueTemplate(t, "two", nil)
	clean := valueTemplate(t, "two", func(t *templatesv1.Template) { t.Objects = t.Objects[:2] })
	published := func(secrets templatesv1.SecretsDelivery) func(*templatesv1.TemplateInstance) {
		return func(ti *templatesv1.TemplateInstance) {
			ti.Spec.Delivery = &templatesv1.Delivery{Type: templatesv1.DeliveryExternalArtifact,
				ExternalArtifact: &templatesv1.ExternalArtifactDelivery{Secrets: secrets}}
		}
	}
	for _, tc := range []struct {
		name      string
		secrets   templatesv1.SecretsDelivery
		candidate *templatesv1.Template
		want      templates.PreviewClassification
		message   string
	}{
		{"a Secret the instance may not apply", "", clean, templates.PreviewFailed, "SecretsNotPublished: nothing was published: the render holds Secret demo/auth"},
		{"a secret value in a published object", templatesv1.SecretsApply, leaky, templates.PreviewFailed, "ConfigMap demo/leak at data.url holds the value"},
		{"Secrets applied, nothing secret published", templatesv1.SecretsApply, clean, templates.PreviewWouldPrune, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1), published(tc.secrets))},
				live: []runtime.Object{generatedValues("shop", "hunter2hunter2")}}).build()
			status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
				Candidate: candidateOf(t, tc.candidate), Caller: &user.DefaultInfo{Name: "bob"}})
			if err != nil {
				t.Fatal(err)
			}
			if answer := fmt.Sprintf("%+v", status); strings.Contains(answer, "hunter2hunter2") {
				t.Errorf("the generated password shows:\n%s", answer)
			}
			one := status.Instances[0]
			if one.Classification != tc.want || !strings.Contains(one.Message, tc.message) {
				t.Errorf("classified %s (%q), want %s (%q)", one.Classification, one.Message, tc.want, tc.message)
			}
		})
	}
}

// TestPreviewPublishedPrunes: a published instance has the objects of its artifact, which Flux
// prunes when the candidate drops one: the preview shows them removed (live or not), and asks
// whether the candidate's author may delete them, as the controller's pass does.
func TestPreviewPublishedPrunes(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	candidate := valueTemplate(t, "one", func(t *templatesv1.Template) { t.Objects = t.Objects[:2] })
	// The artifact Flux applies holds config, leak and extra (from an older revision).
	storage := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"namespace": "demo", "name": publish.StorageName("shop")},
		"data":     map[string]interface{}{publish.ObjectsKey: "v1 ConfigMap demo config\nv1 ConfigMap demo extra\nv1 ConfigMap demo leak"}}}
	published := func(ti *templatesv1.TemplateInstance) {
		ti.Spec.Delivery = &templatesv1.Delivery{Type: templatesv1.DeliveryExternalArtifact,
			ExternalArtifact: &templatesv1.ExternalArtifactDelivery{Secrets: templatesv1.SecretsApply}}
	}
	for _, tc := range []struct {
		name string
		live bool
		deny func(authorizer.Attributes) bool
		want templates.PreviewClassification
	}{
		{"against the stored revision", false, nil, templates.PreviewWouldPrune},
		{"live", true, nil, templates.PreviewWouldPrune},
		{"the author may not delete what Flux would prune", false, refuse("bob", "delete", "configmaps"), templates.PreviewForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("shop", onRevision(1), published)},
				live: []runtime.Object{generatedValues("shop", "hunter2hunter2"), storage}, deny: tc.deny}).build()
			status, err := f.previewer().Preview(context.Background(), Request{Template: internalTemplate(t, stored),
				Candidate: candidateOf(t, candidate), Caller: &user.DefaultInfo{Name: "bob"}, Live: tc.live})
			if err != nil {
				t.Fatal(err)
			}
			one := status.Instances[0]
			if one.Classification != tc.want {
				t.Fatalf("classified %s (%s): %+v", one.Classification, one.Message, one.Objects)
			}
			if tc.want == templates.PreviewForbidden {
				if !strings.Contains(one.Message, "bob") || !strings.Contains(one.Message, "delete") {
					t.Errorf("message %q", one.Message)
				}
				return
			}
			removed := map[string]bool{}
			for _, o := range one.Objects {
				if o.Change == "Removed" {
					removed[o.Name] = true
				}
			}
			if !removed["leak"] || !removed["extra"] || len(removed) != 2 {
				t.Errorf("removed %v, want leak and extra: %+v", removed, one.Objects)
			}
		})
	}
}
