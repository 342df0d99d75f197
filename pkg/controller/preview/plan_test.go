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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
)

// TestPlanHashFollowsEveryPlannedOutput: the plan hash of a preview changes whenever what the
// candidate would apply to some instance changes, also for an instance that keeps no generated
// values yet (before, such an instance had no rendered hash, and revision 1, revision 2 and a
// new body all had one plan hash); the same preview gives the same hash.
func TestPlanHashFollowsEveryPlannedOutput(t *testing.T) {
	stored := valueTemplate(t, "one", nil)
	// Another instance's kept values: "fresh" keeps none.
	f := (&fixture{t: t, objects: []runtime.Object{stored, newInstance("fresh", onRevision(1))},
		live: []runtime.Object{generatedValues("another", "kept")}}).build()
	caller := &user.DefaultInfo{Name: "bob"}
	preview := func(req Request) string {
		t.Helper()
		req.Template, req.Caller = internalTemplate(t, stored), caller
		status, err := f.previewer().Preview(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(status.Instances) != 1 || status.Instances[0].RenderedHash != "" {
			t.Fatalf("instances %+v: want one, without kept values", status.Instances)
		}
		return status.PlanHash
	}
	body := func(value string) Request {
		return Request{Candidate: candidateOf(t, valueTemplate(t, value, nil))}
	}
	plans := map[string]string{
		"revision 1":          preview(Request{Revision: 1}),
		"a body (two)":        preview(body("two")),
		"another body (four)": preview(body("four")),
	}
	seen := map[string]string{}
	for what, plan := range plans {
		if other, ok := seen[plan]; ok {
			t.Errorf("%s and %s share the plan %s", what, other, plan)
		}
		seen[plan] = what
	}
	if again := preview(body("two")); again != plans["a body (two)"] {
		t.Errorf("the same preview again: plan %s, want %s", again, plans["a body (two)"])
	}
	// The instance's own value changes what it would apply: another plan.
	ti, err := f.Instances.TemplatesV1alpha1().TemplateInstances("demo").Get(context.Background(), "fresh", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ti.Spec.Parameters = map[string]string{"VALUE": "mine"}
	if _, err := f.Instances.TemplatesV1alpha1().TemplateInstances("demo").Update(context.Background(), ti, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed := preview(body("two")); changed == plans["a body (two)"] {
		t.Errorf("the instance's value changed, the plan did not: %s", changed)
	}
}
