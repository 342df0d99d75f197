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
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// namespaceAuthorizer allows a user everything in the namespaces it lists, and nothing
// cluster-wide; it records what it was asked.
type namespaceAuthorizer struct {
	namespaces map[string][]string
	asked      []string
}

func (a *namespaceAuthorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	a.asked = append(a.asked, attrs.GetVerb()+" "+attrs.GetResource()+" "+attrs.GetNamespace()+"/"+attrs.GetName())
	for _, ns := range a.namespaces[attrs.GetUser().GetName()] {
		if ns == attrs.GetNamespace() && ns != "" {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "no binding", nil
}

func testMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot)
	return m
}

// TestUninstallGuard: deleting an instance deletes its objects as its requester, so the
// deleting user must be allowed to delete each of them; the Orphan policy deletes nothing.
func TestUninstallGuard(t *testing.T) {
	instance := func() *templates.TemplateInstance {
		return &templates.TemplateInstance{
			ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "a"},
			Status: templates.TemplateInstanceStatus{GeneratedParametersSecret: "shop-generated", Objects: []templates.TemplateInstanceObject{
				{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "local"},
				{APIVersion: "v1", Kind: "ConfigMap", Namespace: "c", Name: "elsewhere"},
				{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "wide"},
				{APIVersion: "gone.example/v1", Kind: "Vanished", Namespace: "a", Name: "x"},
			}},
		}
	}
	authz := &namespaceAuthorizer{namespaces: map[string][]string{"editor": {"a"}, "admin": {"a", "c"}}}
	guard := &UninstallGuard{Authorizer: authorizer.AuthorizerFunc(authz.Authorize), Mapper: testMapper()}
	resource := templates.Resource("templateinstances")
	as := func(name string) context.Context {
		return genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: name})
	}

	err := guard.check(as("editor"), instance(), resource)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("an editor of a deletes what it may not: %v", err)
	}
	for _, want := range []string{"ConfigMap c/elsewhere", "ClusterRole wide", "editor may not delete", v1alpha1.AnnotationDeletionPolicy} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the 403 does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "ConfigMap a/local") || strings.Contains(err.Error(), "shop-generated") {
		t.Errorf("the 403 names objects the editor may delete: %v", err)
	}
	if !strings.Contains(strings.Join(authz.asked, ","), "delete secrets a/shop-generated") {
		t.Errorf("the generated-values Secret was not checked: %v", authz.asked)
	}

	// An admin of both namespaces still may not delete the ClusterRole in this authorizer.
	if err := guard.check(as("admin"), instance(), resource); err == nil || !strings.Contains(err.Error(), "ClusterRole wide") || strings.Contains(err.Error(), "elsewhere") {
		t.Fatalf("admin: %v", err)
	}
	withoutClusterRole := instance()
	withoutClusterRole.Status.Objects = withoutClusterRole.Status.Objects[:2]
	if err := guard.check(as("admin"), withoutClusterRole, resource); err != nil {
		t.Fatalf("a user who may delete every object is refused: %v", err)
	}

	// A retained object is left in place: its patch is asked, not its deletion.
	retained := withoutClusterRole.DeepCopy()
	retained.Status.Objects[1].Lifecycle = v1alpha1.LifecycleRetain
	authz.asked = nil
	if err := guard.check(as("admin"), retained, resource); err != nil || !strings.Contains(strings.Join(authz.asked, ","), "patch configmaps c/elsewhere") {
		t.Fatalf("retained object: %v, asked %v", err, authz.asked)
	}
	if err := guard.check(as("editor"), retained, resource); err == nil || !strings.Contains(err.Error(), "editor may not patch ConfigMap c/elsewhere") {
		t.Fatalf("retained object, editor: %v", err)
	}

	orphan := instance()
	orphan.Annotations = map[string]string{v1alpha1.AnnotationDeletionPolicy: v1alpha1.DeletionPolicyOrphan}
	if err := guard.check(as("editor"), orphan, resource); err != nil {
		t.Fatalf("the Orphan policy deletes nothing, yet: %v", err)
	}
	if err := guard.check(context.Background(), instance(), resource); !apierrors.IsForbidden(err) {
		t.Fatalf("a request without a user: %v", err)
	}
	var none *UninstallGuard
	if err := none.check(as("editor"), instance(), resource); err != nil {
		t.Fatalf("a server without a cluster guards nothing: %v", err)
	}
}
