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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
)

func TestValidateAdoption(t *testing.T) {
	instance := func(a *templates.TemplateInstanceAdoption) *templates.TemplateInstance {
		return &templates.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", ResourceVersion: "1"},
			Spec: templates.TemplateInstanceSpec{TemplateRef: &templates.TemplateReference{Name: "web"}, Adoption: a}}
	}
	cases := []struct {
		name     string
		adoption templates.TemplateInstanceAdoption
		want     []string // each error, as its String() begins
	}{
		{"a Helm release", templates.TemplateInstanceAdoption{HelmRelease: "web", RetainUntilUpgrade: true, Managers: []string{"argocd-controller"}}, nil},
		{"an ApplySet", templates.TemplateInstanceAdoption{ApplySet: "configmaps/web-set"}, nil},
		{"an ApplySet's Secret", templates.TemplateInstanceAdoption{ApplySet: "web-set"}, nil},
		{"a selector", templates.TemplateInstanceAdoption{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}, nil},
		{"nothing", templates.TemplateInstanceAdoption{}, []string{"spec.adoption: Required value: exactly one of helmRelease, applySet and selector is required"}},
		{"two sources", templates.TemplateInstanceAdoption{HelmRelease: "web", ApplySet: "web"}, []string{"spec.adoption: Forbidden: exactly one of helmRelease, applySet and selector may be set"}},
		{"published", templates.TemplateInstanceAdoption{HelmRelease: "published"}, []string{"spec.adoption: Forbidden: an instance published for Flux applies nothing itself"}},
		{"every problem at once", templates.TemplateInstanceAdoption{HelmRelease: "Web_" + strings.Repeat("x", 60), ApplySet: "deployments/web",
			Selector: &metav1.LabelSelector{}, Managers: []string{"", "stencil.dev/templateinstance"}}, []string{
			"spec.adoption: Forbidden",
			`spec.adoption.applySet: Invalid value: "deployments/web": the parent must be a Secret or a ConfigMap`,
			`spec.adoption.helmRelease: Invalid value: "Web_`,
			"spec.adoption.helmRelease: Too long: may not be more than 53 bytes",
			`spec.adoption.managers[0]: Invalid value: "": must name a field manager`,
			`spec.adoption.managers[1]: Invalid value: "stencil.dev/templateinstance": is the instance's own field manager`,
			"spec.adoption.selector: Invalid value: \"\": must select something",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.adoption
			ti := instance(&a)
			if a.HelmRelease == "published" {
				a.HelmRelease = "web"
				ti.Spec.Delivery = &templates.Delivery{Type: templates.DeliveryExternalArtifact}
			}
			errs := SortByField(ValidateTemplateInstance(ti))
			if len(errs) != len(tc.want) {
				t.Fatalf("got %v, want %v", errs, tc.want)
			}
			for i, e := range errs {
				if !strings.HasPrefix(e.Error(), tc.want[i]) {
					t.Errorf("error %d: got %q, want %q...", i, e.Error(), tc.want[i])
				}
			}
		})
	}

	old := instance(&templates.TemplateInstanceAdoption{HelmRelease: "web"})
	same := instance(&templates.TemplateInstanceAdoption{HelmRelease: "web"})
	same.Spec.Parameters = map[string]string{"REPLICAS": "3"}
	if errs := ValidateTemplateInstanceUpdate(same, old); len(errs) != 0 {
		t.Errorf("an upgrade of an adopting instance: %v", errs)
	}
	other := instance(&templates.TemplateInstanceAdoption{HelmRelease: "db"})
	if errs := ValidateTemplateInstanceUpdate(other, old); len(errs) != 1 || !strings.Contains(errs[0].Error(), "spec.adoption: Forbidden: may not change") {
		t.Errorf("another release: %v", errs)
	}
	if errs := ValidateTemplateInstanceUpdate(instance(nil), old); len(errs) != 1 {
		t.Errorf("adoption removed: %v", errs)
	}
}
