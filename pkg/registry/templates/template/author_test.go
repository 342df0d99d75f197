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

package template

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
)

func as(name string, groups ...string) context.Context {
	return genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: name, UID: name + "-uid", Groups: groups,
		Extra: map[string][]string{"scopes": {"a"}}})
}

// TestAuthorIsTheLastWriterOfTheContent: the server records who wrote a Template's content,
// never what the client says, and keeps it through changes of the metadata alone, so that an
// instance can check the rights of whoever shaped what it applies.
func TestAuthorIsTheLastWriterOfTheContent(t *testing.T) {
	s := newTestStrategy()
	forged := &templates.TemplateAuthor{Username: "system:admin", Groups: []string{"system:masters"}}

	created := newTemplate()
	created.Author = forged
	s.PrepareForCreate(as("alice", "team-a"), created)
	if a := created.Author; a == nil || a.Username != "alice" || a.UID != "alice-uid" || len(a.Groups) != 1 || a.Groups[0] != "team-a" || a.Extra["scopes"][0] != "a" {
		t.Fatalf("author after create: %+v", created.Author)
	}

	cases := []struct {
		name   string
		change func(*templates.Template)
		want   string
	}{
		{"a label keeps the author", func(t *templates.Template) { t.Labels = map[string]string{"x": "y"} }, "alice"},
		{"an annotation keeps the author", func(t *templates.Template) { t.Annotations = map[string]string{"description": "d"} }, "alice"},
		{"the same content keeps the author", func(*templates.Template) {}, "alice"},
		{"an object change makes the writer the author", func(t *templates.Template) {
			t.Objects = raw(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"x"}}`)
		}, "mallory"},
		{"a parameter default makes the writer the author", func(t *templates.Template) { t.Parameters[0].Value = "other" }, "mallory"},
		{"a transformer makes the writer the author", func(t *templates.Template) { t.Transformers = nil }, "mallory"},
		{"an import makes the writer the author", func(t *templates.Template) {
			t.TransformersFrom = []templates.TransformerImport{{Name: "base", ImportMode: templates.ImportModePrepend}}
		}, "mallory"},
		{"the dialect makes the writer the author", func(t *templates.Template) { t.OpenShift = true }, "mallory"},
		{"the message makes the writer the author", func(t *templates.Template) { t.Message = "other" }, "mallory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			updated := created.DeepCopy()
			tc.change(updated)
			updated.Author = forged
			s.PrepareForUpdate(as("mallory"), updated, created)
			if updated.Author == nil || updated.Author.Username != tc.want {
				t.Fatalf("author %+v, want %s", updated.Author, tc.want)
			}
		})
	}

	t.Run("a Template without an author gets its first writer", func(t *testing.T) {
		old := created.DeepCopy()
		old.Author = nil
		updated := old.DeepCopy()
		s.PrepareForUpdate(as("bob"), updated, old)
		if updated.Author == nil || updated.Author.Username != "bob" {
			t.Fatalf("author %+v", updated.Author)
		}
	})
}

// TestRolloutAuthorIsTheLastWriterOfTheRollout: the server records who last changed how a
// Template's instances move (its rollout, or a rollout annotation: a plan, a resume, an undo),
// never what the client says; a change of the content or of other metadata keeps it.
func TestRolloutAuthorIsTheLastWriterOfTheRollout(t *testing.T) {
	s := newTestStrategy()
	forged := &templates.TemplateAuthor{Username: "system:admin", Groups: []string{"system:masters"}}
	created := newTemplate()
	created.RolloutAuthor = forged
	s.PrepareForCreate(as("alice"), created)
	if created.RolloutAuthor != nil {
		t.Fatalf("a Template created without a rollout: rollout author %+v", created.RolloutAuthor)
	}
	withRollout := newTemplate()
	withRollout.Rollout = &templates.Rollout{Paused: true}
	s.PrepareForCreate(as("alice"), withRollout)
	if a := withRollout.RolloutAuthor; a == nil || a.Username != "alice" {
		t.Fatalf("a Template created with a rollout: rollout author %+v", a)
	}
	for _, tc := range []struct {
		name   string
		change func(*templates.Template)
		want   string
	}{
		{"a resume", func(t *templates.Template) { t.Rollout.Paused = false }, "mallory"},
		{"the waves", func(t *templates.Template) { t.Rollout.Waves = []intstr.IntOrString{intstr.FromInt32(1)} }, "mallory"},
		{"the rollout removed", func(t *templates.Template) { t.Rollout = nil }, "mallory"},
		{"a resume annotation", func(t *templates.Template) {
			t.Annotations = map[string]string{"templates.stencil.dev/rollout-resume": "2/1"}
		}, "mallory"},
		{"an undo annotation", func(t *templates.Template) {
			t.Annotations = map[string]string{"templates.stencil.dev/rollout-undo": "sha256:x"}
		}, "mallory"},
		{"a plan", func(t *templates.Template) {
			t.Annotations = map[string]string{"templates.stencil.dev/rollout-plan-hash": "sha256:x"}
		}, "mallory"},
		{"another annotation keeps it", func(t *templates.Template) { t.Annotations = map[string]string{"description": "d"} }, "alice"},
		{"the content keeps it", func(t *templates.Template) { t.Message = "other" }, "alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			updated := withRollout.DeepCopy()
			tc.change(updated)
			updated.RolloutAuthor = forged
			s.PrepareForUpdate(as("mallory"), updated, withRollout)
			if updated.RolloutAuthor == nil || updated.RolloutAuthor.Username != tc.want {
				t.Fatalf("rollout author %+v, want %s", updated.RolloutAuthor, tc.want)
			}
		})
	}
}
