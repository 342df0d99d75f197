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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/instance/instancetest"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// testPlanner is a Planner that maps the tests' kinds and allows everything.
func testPlanner() *instance.Planner {
	return instancetest.NewFakes(nil, nil, nil).Planner()
}

func object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]interface{}{"name": name, "labels": map[string]interface{}{"app": name}}}}
	if namespace != "" {
		u.SetNamespace(namespace)
	}
	return u
}

func TestPlan(t *testing.T) {
	ti := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "demo", UID: "ti-uid"}}
	plan, err := testPlanner().Plan(ti, &instance.Rendered{
		Objects: []*unstructured.Unstructured{
			object("v1", "ConfigMap", "", "config"),
			object("v1", "ConfigMap", "other", "config"),
			object("rbac.authorization.k8s.io/v1", "ClusterRole", "demo", "reader"),
		},
		Generated: map[string]string{"PASSWORD": "s3cret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan {
		got = append(got, inventory.DescribeObject(p.Ref)+" "+p.Resource.Resource)
		if p.Obj.GetLabels()[inventory.PartOfLabel] != inventory.ApplySetID("demo", "shop") {
			t.Errorf("%s is not labelled a member: %v", p, p.Obj.GetLabels())
		}
	}
	want := "Secret demo/shop-generated secrets|ConfigMap demo/config configmaps|ConfigMap other/config configmaps|ClusterRole reader clusterroles"
	if strings.Join(got, "|") != want {
		t.Fatalf("plan:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if !plan[0].Generated || plan[1].Generated {
		t.Error("only the first object is the generated-values Secret")
	}
	secret := plan[0].Obj
	if data, _, _ := unstructured.NestedString(secret.Object, "data", "PASSWORD"); data != "czNjcmV0" {
		t.Errorf("generated Secret data: %v", secret.Object["data"])
	}
	if refs := secret.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != "ti-uid" || refs[0].Kind != "TemplateInstance" {
		t.Errorf("generated Secret owner: %+v", refs)
	}
}

func TestPlanRefusesEveryBadObject(t *testing.T) {
	ti := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "demo"}}
	_, err := testPlanner().Plan(ti, &instance.Rendered{Objects: []*unstructured.Unstructured{
		object("v1", "ConfigMap", "", "twice"),
		object("v1", "ConfigMap", "demo", "twice"),
		object("example.com/v1", "Widget", "", "w"),
		object("v1", "ConfigMap", "", ""),
	}})
	f, ok := err.(*instance.Failure)
	if !ok || f.Reason != "InvalidObjects" {
		t.Fatalf("want an InvalidObjects failure, got %v", err)
	}
	for _, want := range []string{"ConfigMap demo/twice: rendered twice", "Widget w: the cluster serves no such kind", "object 3: apiVersion, kind and metadata.name are required"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("%q not in %q", want, f.Message)
		}
	}
}

func TestRotationRequest(t *testing.T) {
	ti := &templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		templatesv1.AnnotationRotateGeneratedParameters: " PASSWORD, TOKEN ,,"}}}
	got := instance.RotationRequest(ti)
	if len(got) != 2 || !got["PASSWORD"] || !got["TOKEN"] {
		t.Fatalf("rotation request: %v", got)
	}
}
