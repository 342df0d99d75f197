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

package integration

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	applyv1 "stencil.dev/stencil/pkg/generated/applyconfiguration/templates/v1alpha1"
)

func newTemplate(name string, labels map[string]string) *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Message:    "created ${NAME}",
		Parameters: []templatesv1.Parameter{
			{Name: "NAME", Value: "app", Required: true},
			{Name: "PASSWORD", Generate: "expression", From: "[a-z]{8}"},
		},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"p":"${PASSWORD}"}}`)},
		},
	}
}

func TestTemplateCRUD(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("crud")

	created, err := client.Create(ctx, newTemplate("web", map[string]string{"tier": "front"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.UID == "" || created.ResourceVersion == "" {
		t.Fatalf("create returned no uid or resourceVersion: %+v", created.ObjectMeta)
	}
	if _, err := client.Create(ctx, newTemplate("db", map[string]string{"tier": "back"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := client.Create(ctx, newTemplate("web", nil), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create of web: want AlreadyExists, got %v", err)
	}

	got, err := client.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if got.Message != "created ${NAME}" || len(got.Objects) != 1 || got.Parameters[1].From != "[a-z]{8}" {
		t.Fatalf("get returned a different template: %+v", got)
	}

	byLabel, err := client.List(ctx, metav1.ListOptions{LabelSelector: "tier=back"})
	if err != nil || len(byLabel.Items) != 1 || byLabel.Items[0].Name != "db" {
		t.Fatalf("list by label: %v %+v", err, byLabel)
	}
	byField, err := client.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web"})
	if err != nil || len(byField.Items) != 1 || byField.Items[0].Name != "web" {
		t.Fatalf("list by field: %v %+v", err, byField)
	}
	page, err := client.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Continue == "" {
		t.Fatalf("first page: %v %+v", err, page.ListMeta)
	}
	rest, err := client.List(ctx, metav1.ListOptions{Limit: 1, Continue: page.Continue})
	if err != nil || len(rest.Items) != 1 || rest.Items[0].Name == page.Items[0].Name {
		t.Fatalf("second page: %v %+v", err, rest)
	}

	got.Message = "updated"
	updated, err := client.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.Message != "updated" || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("update: %v %+v", err, updated)
	}

	if err := client.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := client.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: want NotFound, got %v", err)
	}
	if err := client.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatalf("deletecollection: %v", err)
	}
	if left, err := client.List(ctx, metav1.ListOptions{}); err != nil || len(left.Items) != 0 {
		t.Fatalf("after deletecollection: %v %+v", err, left)
	}
}

func TestTemplateDryRun(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("dryrun")
	if _, err := client.Create(ctx, newTemplate("ghost", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	if _, err := client.Get(ctx, "ghost", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a dry-run create was stored: %v", err)
	}
}

func TestTemplateWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := shared.client(t).TemplatesV1alpha1().Templates("watch")
	w, err := client.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	if _, err := client.Create(ctx, newTemplate("watched", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.Delete(ctx, "watched", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var seen []watch.EventType
	for len(seen) < 2 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", seen)
			}
			if tpl, ok := ev.Object.(*templatesv1.Template); !ok || tpl.Name != "watched" {
				t.Fatalf("unexpected event object %T %v", ev.Object, ev.Object)
			}
			seen = append(seen, ev.Type)
		case <-ctx.Done():
			t.Fatalf("watch saw only %v", seen)
		}
	}
	if seen[0] != watch.Added || seen[1] != watch.Deleted {
		t.Fatalf("events: got %v, want [ADDED DELETED]", seen)
	}
}

func TestTemplateUpdateConflict(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("conflict")
	first, err := client.Create(ctx, newTemplate("race", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second := first.DeepCopy()
	first.Message = "first writer"
	if _, err := client.Update(ctx, first, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("first update: %v", err)
	}
	second.Message = "second writer, stale"
	_, err = client.Update(ctx, second, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale update: want 409 Conflict, got %v", err)
	}
}

func TestTemplateServerSideApply(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("ssa")
	alice := applyv1.Template("shared", "ssa").
		WithMessage("from alice").
		WithParameters(applyv1.Parameter().WithName("A").WithValue("1"))
	if _, err := client.Apply(ctx, alice, metav1.ApplyOptions{FieldManager: "alice"}); err != nil {
		t.Fatalf("apply by alice: %v", err)
	}
	bob := applyv1.Template("shared", "ssa").
		WithParameters(applyv1.Parameter().WithName("B").WithValue("2"))
	if _, err := client.Apply(ctx, bob, metav1.ApplyOptions{FieldManager: "bob"}); err != nil {
		t.Fatalf("apply by bob: %v", err)
	}
	got, err := client.Get(ctx, "shared", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// parameters is a map list keyed by name, so both managers' entries survive.
	if len(got.Parameters) != 2 || got.Message != "from alice" {
		t.Fatalf("merged template: %+v", got)
	}
	managers := map[string]bool{}
	for _, mf := range got.ManagedFields {
		managers[mf.Manager] = true
	}
	if !managers["alice"] || !managers["bob"] {
		t.Fatalf("managedFields: %+v", got.ManagedFields)
	}

	// bob taking alice's message is a conflict until he forces it.
	bobMessage := applyv1.Template("shared", "ssa").WithMessage("from bob").
		WithParameters(applyv1.Parameter().WithName("B").WithValue("2"))
	if _, err := client.Apply(ctx, bobMessage, metav1.ApplyOptions{FieldManager: "bob"}); !apierrors.IsConflict(err) {
		t.Fatalf("conflicting apply: want 409, got %v", err)
	}
	forced, err := client.Apply(ctx, bobMessage, metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil || forced.Message != "from bob" {
		t.Fatalf("forced apply: %v %+v", err, forced)
	}
}
