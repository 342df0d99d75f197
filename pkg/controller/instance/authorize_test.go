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

package instance_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// namespacedOnly allows the users it names everything in their namespaces and nothing
// cluster-wide; admin may do everything. It counts the reviews asked.
type namespacedOnly struct {
	namespaces map[string]string
	asked      int
}

func (a *namespacedOnly) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	a.asked++
	name := attrs.GetUser().GetName()
	if name == "admin" || (attrs.GetNamespace() != "" && a.namespaces[name] == attrs.GetNamespace()) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "RBAC: no binding", nil
}

func templateBy(name, username string) *templates.Template {
	t := &templates.Template{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name}}
	if username != "" {
		t.Author = &templates.TemplateAuthor{Username: username, Groups: []string{"system:authenticated"}}
	}
	return t
}

// TestAuthorizeAuthors: an instance applies or prunes an object only if every author of a
// Template rendered into it may, whoever the requester is.
func TestAuthorizeAuthors(t *testing.T) {
	ti := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "shop"},
		Spec: templatesv1.TemplateInstanceSpec{Requester: &templatesv1.TemplateInstanceRequester{Username: "admin"}}}
	plan, err := testPlanner().Plan(ti, &instance.Rendered{Objects: []*unstructured.Unstructured{
		object("v1", "ConfigMap", "", "config"),
		object("rbac.authorization.k8s.io/v1", "ClusterRole", "", "escalate"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	local := instance.WriteTargets(plan[:1])
	cases := []struct {
		name    string
		authors []instance.Author
		targets []instance.Target
		reason  string
		want    []string
	}{
		{"the requester's own template", []instance.Author{instance.AuthorOf(templateBy("app", "admin"))}, instance.WriteTargets(plan), "", nil},
		{"an editor's change to an admin's instance", []instance.Author{instance.AuthorOf(templateBy("app", "editor"))}, instance.WriteTargets(plan),
			"AuthorForbidden", []string{"ClusterRole escalate: editor, the author of Template a/app, may not create it: RBAC: no binding"}},
		{"an editor's import", []instance.Author{instance.AuthorOf(templateBy("app", "admin")), instance.AuthorOf(templateBy("base", "editor"))}, instance.WriteTargets(plan),
			"AuthorForbidden", []string{"the author of Template a/base"}},
		{"one author of two templates is named once with both", []instance.Author{instance.AuthorOf(templateBy("app", "editor")), instance.AuthorOf(templateBy("base", "editor"))},
			instance.WriteTargets(plan), "AuthorForbidden", []string{"the author of Templates a/app, a/base"}},
		{"an editor's objects in its namespace", []instance.Author{instance.AuthorOf(templateBy("app", "editor"))}, local, "", nil},
		{"a prune the author may not do", []instance.Author{instance.AuthorOf(templateBy("app", "editor"))}, testPlanner().PruneTargets([]templatesv1.TemplateInstanceObject{
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "c", Name: "elsewhere"},
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "kept"},
		}, map[string]bool{inventory.ObjectKey(templatesv1.TemplateInstanceObject{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "kept"}): true}), "AuthorForbidden", []string{"ConfigMap c/elsewhere: editor, the author of Template a/app, may not delete it"}},
		{"a template with no recorded author", []instance.Author{instance.AuthorOf(templateBy("app", ""))}, local, "NoAuthor", []string{"Template a/app records no author"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			authz := &namespacedOnly{namespaces: map[string]string{"editor": "a"}}
			cfg := testPlanner().Config()
			cfg.Authorizer = authorizer.AuthorizerFunc(authz.Authorize)
			planner, err := instance.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = planner.AuthorizeAuthors(context.Background(), ti, tc.authors, tc.targets)
			if tc.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var f *instance.Failure
			if !errors.As(err, &f) || f.Reason != tc.reason {
				t.Fatalf("want %s, got %v", tc.reason, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(f.Message, w) {
					t.Errorf("the message does not say %q: %s", w, f.Message)
				}
			}
		})
	}
}
