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

package validation

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

func TestValidateTemplateInstance(t *testing.T) {
	valid := func() *templates.TemplateInstance {
		return &templates.TemplateInstance{
			ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "demo"},
			Spec: templates.TemplateInstanceSpec{
				TemplateRef:    &templates.TemplateReference{Name: "redis"},
				Parameters:     map[string]string{"NAME": "shop"},
				ParametersFrom: []templates.ParametersSource{{SecretRef: &templates.SecretReference{Name: "shop-params"}}},
				Labels:         map[string]string{"instance": "shop"},
			},
		}
	}
	cases := []struct {
		name   string
		mutate func(*templates.TemplateInstance)
		want   []string // the fields of the errors, in order
	}{
		{"valid", func(*templates.TemplateInstance) {}, nil},
		{"inline template", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef = nil
			ti.Spec.Template = &runtime.RawExtension{Raw: []byte(`{"kind":"Template"}`)}
		}, nil},
		{"neither", func(ti *templates.TemplateInstance) { ti.Spec.TemplateRef = nil }, []string{"spec.templateRef"}},
		{"both", func(ti *templates.TemplateInstance) {
			ti.Spec.Template = &runtime.RawExtension{Raw: []byte(`{}`)}
		}, []string{"spec.template"}},
		{"template not an object", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef = nil
			ti.Spec.Template = &runtime.RawExtension{Raw: []byte(`[1]`)}
		}, []string{"spec.template"}},
		{"every problem at once", func(ti *templates.TemplateInstance) {
			ti.Name = strings.Repeat("a", 250)
			ti.Namespace = ""
			ti.Spec.TemplateRef.Name = "Bad_Name"
			ti.Spec.ParametersFrom = append(ti.Spec.ParametersFrom, templates.ParametersSource{}, templates.ParametersSource{SecretRef: &templates.SecretReference{}})
			ti.Spec.Parameters[""] = "x"
			ti.Spec.Labels["bad key!"] = "v"
		}, []string{"metadata.name", "metadata.namespace", "spec.labels", "spec.parameters",
			"spec.parametersFrom[1].secretRef", "spec.parametersFrom[2].secretRef.name", "spec.templateRef.name"}},
		{"a pinned revision and a policy", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef.Revision, ti.Spec.UpdatePolicy = 3, templates.UpdatePolicyManual
		}, nil},
		{"a negative revision and an unknown policy", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef.Revision, ti.Spec.UpdatePolicy = -1, "Sometimes"
		}, []string{"spec.templateRef.revision", "spec.updatePolicy"}},
		{"parametersFrom at the limit", func(ti *templates.TemplateInstance) {
			ti.Spec.ParametersFrom = secretSources(MaxParametersFrom)
		}, nil},
		// 10,000 sources were accepted before (issue 24): as many Secret reads per reconcile.
		{"parametersFrom beyond the limit", func(ti *templates.TemplateInstance) {
			ti.Spec.ParametersFrom = secretSources(10000)
			ti.Spec.ParametersFrom[3].SecretRef.Name = "Bad_Name"
			ti.Spec.ParametersFrom[MaxParametersFrom+1].SecretRef = nil // not checked one by one
		}, []string{"spec.parametersFrom", "spec.parametersFrom[3].secretRef.name"}},
		{"published", func(ti *templates.TemplateInstance) {
			ti.Spec.Delivery = &templates.Delivery{Type: templates.DeliveryExternalArtifact,
				ExternalArtifact: &templates.ExternalArtifactDelivery{Secrets: templates.SecretsApply}}
		}, nil},
		{"applied, said so", func(ti *templates.TemplateInstance) {
			ti.Spec.Delivery = &templates.Delivery{Type: templates.DeliveryApply}
		}, nil},
		{"an unknown delivery and secrets", func(ti *templates.TemplateInstance) {
			ti.Spec.Delivery = &templates.Delivery{Type: "Carrier", ExternalArtifact: &templates.ExternalArtifactDelivery{Secrets: "Maybe"}}
		}, []string{"spec.delivery.externalArtifact.secrets", "spec.delivery.type"}},
		{"artifact options on an applied instance", func(ti *templates.TemplateInstance) {
			ti.Spec.Delivery = &templates.Delivery{ExternalArtifact: &templates.ExternalArtifactDelivery{}}
		}, []string{"spec.delivery.externalArtifact"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ti := valid()
			tc.mutate(ti)
			errs := SortByField(ValidateTemplateInstance(ti))
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("fields: got %v, want %v\n%v", got, tc.want, errs)
			}
		})
	}
}

// secretSources returns n parametersFrom sources naming valid Secrets.
func secretSources(n int) []templates.ParametersSource {
	out := make([]templates.ParametersSource, n)
	for i := range out {
		out[i].SecretRef = &templates.SecretReference{Name: fmt.Sprintf("params-%d", i)}
	}
	return out
}

// TestParametersFromLimitMessage checks that the 422 states the limit and the count.
func TestParametersFromLimitMessage(t *testing.T) {
	spec := &templates.TemplateInstanceSpec{TemplateRef: &templates.TemplateReference{Name: "t"}, ParametersFrom: secretSources(MaxParametersFrom + 1)}
	errs := validateTemplateInstanceSpec(spec, field.NewPath("spec"))
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeTooMany || !strings.Contains(errs[0].Error(), "must have at most 16 items") {
		t.Fatalf("errors %v", errs)
	}
}

// The delivery's type cannot change: the objects would move from one applier to another.
func TestValidateTemplateInstanceUpdateKeepsDelivery(t *testing.T) {
	published := &templates.Delivery{Type: templates.DeliveryExternalArtifact}
	for _, tc := range []struct {
		name     string
		old, new *templates.Delivery
		want     string
	}{
		{"applied stays applied", nil, &templates.Delivery{Type: templates.DeliveryApply}, ""},
		{"published stays published, secrets change", published,
			&templates.Delivery{Type: templates.DeliveryExternalArtifact, ExternalArtifact: &templates.ExternalArtifactDelivery{Secrets: templates.SecretsApply}}, ""},
		{"applied to published", nil, published, `spec.delivery.type: Invalid value: "ExternalArtifact": field is immutable`},
		{"published to applied", published, nil, `spec.delivery.type: Invalid value: "Apply": field is immutable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := &templates.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "demo", ResourceVersion: "1"},
				Spec: templates.TemplateInstanceSpec{TemplateRef: &templates.TemplateReference{Name: "redis"}, Delivery: tc.old}}
			ti := old.DeepCopy()
			ti.Spec.Delivery = tc.new
			errs := ValidateTemplateInstanceUpdate(ti, old)
			if got := errs.ToAggregate(); (got == nil && tc.want != "") || (got != nil && got.Error() != tc.want) {
				t.Fatalf("errors %v, want %q", errs, tc.want)
			}
		})
	}
}

func TestValidateTemplateInstanceStatusUpdate(t *testing.T) {
	old := &templates.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "demo", ResourceVersion: "1"}}
	ti := old.DeepCopy()
	ti.Status = templates.TemplateInstanceStatus{
		ObservedGeneration:        -1,
		Conditions:                []metav1.Condition{{Type: "Ready", Status: "Maybe", Reason: "x"}},
		Objects:                   []templates.TemplateInstanceObject{{APIVersion: "v1", Name: "a"}},
		GeneratedParametersSecret: "Bad_Name",
		Artifact:                  &templates.PublishedArtifact{ExternalArtifact: "shop"},
	}
	var got []string
	for _, e := range SortByField(ValidateTemplateInstanceStatusUpdate(ti, old)) {
		got = append(got, e.Field)
	}
	want := "status.artifact.digest status.artifact.revision status.conditions[0].lastTransitionTime status.conditions[0].status " +
		"status.generatedParametersSecret status.objects[0].kind status.observedGeneration"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}
