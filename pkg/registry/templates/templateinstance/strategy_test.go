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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func as(name string) context.Context {
	return genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: name, UID: name + "-uid",
		Groups: []string{"team"}, Extra: map[string][]string{"scopes": {"a"}}})
}

func instance() *templates.TemplateInstance {
	return &templates.TemplateInstance{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "demo"},
		Spec: templates.TemplateInstanceSpec{
			TemplateRef: &templates.TemplateReference{Name: "redis"},
			Parameters:  map[string]string{"NAME": "shop"},
			Requester:   &templates.TemplateInstanceRequester{Username: "forged", Groups: []string{"system:masters"}},
		},
		Status: templates.TemplateInstanceStatus{ObservedGeneration: 9},
	}
}

func TestPrepareForCreate(t *testing.T) {
	for _, noCluster := range []bool{false, true} {
		ti := instance()
		NewStrategy(runtime.NewScheme(), Capabilities{NoCluster: noCluster}).PrepareForCreate(as("alice"), ti)
		r := ti.Spec.Requester
		if r.Username != "alice" || r.UID != "alice-uid" || len(r.Groups) != 1 || r.Groups[0] != "team" || r.Extra["scopes"][0] != "a" {
			t.Errorf("requester: %+v", r)
		}
		if ti.Generation != 1 {
			t.Errorf("generation %d", ti.Generation)
		}
		ready := meta.FindStatusCondition(ti.Status.Conditions, v1alpha1.TemplateInstanceReady)
		switch {
		case noCluster && (ready == nil || ready.Reason != NoClusterReason):
			t.Errorf("no cluster: status %+v", ti.Status)
		case !noCluster && (ready != nil || ti.Status.ObservedGeneration != 0):
			t.Errorf("a client's status was kept: %+v", ti.Status)
		}
	}
}

func TestPrepareForUpdate(t *testing.T) {
	s := NewStrategy(runtime.NewScheme(), Capabilities{})
	cases := []struct {
		name           string
		mutate         func(*templates.TemplateInstance)
		wantRequester  string
		wantGeneration int64
	}{
		{"no change", func(*templates.TemplateInstance) {}, "alice", 1},
		{"forged requester only", func(ti *templates.TemplateInstance) {
			ti.Spec.Requester = &templates.TemplateInstanceRequester{Username: "mallory"}
		}, "alice", 1},
		{"label", func(ti *templates.TemplateInstance) { ti.Labels = map[string]string{"a": "b"} }, "alice", 1},
		{"finalizer", func(ti *templates.TemplateInstance) { ti.Finalizers = []string{"x"} }, "alice", 1},
		{"parameter", func(ti *templates.TemplateInstance) { ti.Spec.Parameters["NAME"] = "other" }, "bob", 2},
		{"template ref", func(ti *templates.TemplateInstance) { ti.Spec.TemplateRef.Name = "other" }, "bob", 2},
		{"properties", func(ti *templates.TemplateInstance) { ti.Spec.Properties = map[string]string{"a": "b"} }, "bob", 2},
		{"rotation request", func(ti *templates.TemplateInstance) {
			ti.Annotations = map[string]string{v1alpha1.AnnotationRotateGeneratedParameters: "PASSWORD"}
		}, "bob", 1},
		// Whoever consents to apply an instance created without a cluster is who it acts as.
		{"consent to apply", func(ti *templates.TemplateInstance) {
			ti.Annotations = map[string]string{v1alpha1.AnnotationApplyCreatedWithoutCluster: "true"}
		}, "bob", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := instance()
			s.PrepareForCreate(as("alice"), old)
			old.Status.ObservedGeneration = 1
			ti := old.DeepCopy()
			ti.Status = templates.TemplateInstanceStatus{ObservedGeneration: 5}
			tc.mutate(ti)
			s.PrepareForUpdate(as("bob"), ti, old)
			if ti.Spec.Requester == nil || ti.Spec.Requester.Username != tc.wantRequester {
				t.Errorf("requester %+v, want %s", ti.Spec.Requester, tc.wantRequester)
			}
			if ti.Generation != tc.wantGeneration {
				t.Errorf("generation %d, want %d", ti.Generation, tc.wantGeneration)
			}
			if ti.Status.ObservedGeneration != 1 {
				t.Errorf("status changed through the main resource: %+v", ti.Status)
			}
		})
	}
}

func TestStatusStrategy(t *testing.T) {
	s := NewStatusStrategy(NewStrategy(runtime.NewScheme(), Capabilities{}))
	old := instance()
	old.Labels, old.ResourceVersion = map[string]string{"a": "b"}, "1"
	ti := old.DeepCopy()
	ti.Spec.Parameters = map[string]string{"NAME": "changed"}
	ti.Labels = nil
	ti.Status = templates.TemplateInstanceStatus{ObservedGeneration: 3, Objects: []templates.TemplateInstanceObject{{APIVersion: "v1", Kind: "Secret", Name: "s"}}}
	s.PrepareForUpdate(as("controller"), ti, old)
	if ti.Spec.Parameters["NAME"] != "shop" || ti.Labels["a"] != "b" {
		t.Errorf("spec or metadata changed through status: %+v %+v", ti.Spec, ti.Labels)
	}
	if ti.Status.ObservedGeneration != 3 || len(ti.Status.Objects) != 1 {
		t.Errorf("status not written: %+v", ti.Status)
	}
	if errs := s.ValidateUpdate(context.Background(), ti, old); len(errs) != 0 {
		t.Errorf("valid status refused: %v", errs)
	}
	ti.Status.Objects[0].Kind = ""
	if errs := s.ValidateUpdate(context.Background(), ti, old); len(errs) != 1 || errs[0].Field != "status.objects[0].kind" {
		t.Errorf("invalid status: %v", errs)
	}
}

func TestValidateInlineTemplate(t *testing.T) {
	s := NewStrategy(runtime.NewScheme(), Capabilities{})
	ti := instance()
	ti.Spec.TemplateRef = nil
	ti.Spec.Template = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"template.openshift.io/v1","kind":"Template","objects":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}]}`)}
	if errs := s.Validate(context.Background(), ti); len(errs) != 0 {
		t.Fatalf("an OpenShift template refused: %v", errs)
	}
	ti.Spec.Template.Raw = []byte(`{"kind":"Template","objects":"no"}`)
	ti.Spec.Properties = map[string]string{"not an identifier": ""}
	errs := s.Validate(context.Background(), ti)
	if len(errs) != 2 || errs[0].Field != "spec.properties[not an identifier]" || errs[1].Field != "spec.template" {
		t.Fatalf("want problems at spec.properties and spec.template, got %v", errs)
	}
}

// A published instance is refused by a server that serves no artifacts: nothing could fetch
// what it would publish.
func TestPublishedNeedsAnArtifactServer(t *testing.T) {
	ti := instance()
	ti.Spec.Delivery = &templates.Delivery{Type: templates.DeliveryExternalArtifact}
	errs := NewStrategy(runtime.NewScheme(), Capabilities{}).Validate(context.Background(), ti)
	if len(errs) != 1 || errs[0].Field != "spec.delivery.type" || !strings.Contains(errs[0].Error(), "--artifact-port") {
		t.Fatalf("errors %v", errs)
	}
	old := instance()
	old.ResourceVersion = "1"
	ti.ResourceVersion = "1"
	if errs := NewStrategy(runtime.NewScheme(), Capabilities{}).ValidateUpdate(context.Background(), ti, old); len(errs) != 2 {
		t.Errorf("update: %v", errs)
	}
	if errs := NewStrategy(runtime.NewScheme(), Capabilities{Publishing: true}).Validate(context.Background(), ti); len(errs) != 0 {
		t.Errorf("a server that publishes: %v", errs)
	}
}

// TestRolloutMarkIsTheServers (hostile): the mark of the rollout's wave that moved an instance
// is the server's, as its status is: a user's create or update keeps the stored mark (none on
// a create), so nobody moves their instance ahead of its wave by writing one, nor drops one
// with a replace; the server's loopback (system:apiserver) writes it.
func TestRolloutMarkIsTheServers(t *testing.T) {
	s := NewStrategy(runtime.NewScheme(), Capabilities{})
	const mark = v1alpha1.AnnotationRolloutMoved
	created := instance()
	created.Annotations = map[string]string{mark: "2/1/uid", "a": "b"}
	s.PrepareForCreate(as("alice"), created)
	if _, ok := created.Annotations[mark]; ok || created.Annotations["a"] != "b" {
		t.Fatalf("a user's create kept the mark: %v", created.Annotations)
	}
	server := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}})
	marked := created.DeepCopy()
	marked.Annotations[mark] = "2/1/uid"
	s.PrepareForUpdate(server, marked, created)
	if marked.Annotations[mark] != "2/1/uid" {
		t.Fatalf("the server's mark was dropped: %v", marked.Annotations)
	}
	for name, edit := range map[string]func(*templates.TemplateInstance){
		"forged":   func(ti *templates.TemplateInstance) { ti.Annotations[mark] = "3/1/uid" },
		"removed":  func(ti *templates.TemplateInstance) { delete(ti.Annotations, mark) },
		"replaced": func(ti *templates.TemplateInstance) { ti.Annotations = nil },
	} {
		updated := marked.DeepCopy()
		edit(updated)
		s.PrepareForUpdate(as("alice"), updated, marked)
		if updated.Annotations[mark] != "2/1/uid" {
			t.Errorf("%s by a user: %v", name, updated.Annotations)
		}
	}
}
