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
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/instance/instancetest"
)

// TestObjectLifecycle: the template's annotation decides, and an adoption that asked for it
// retains what it took over until the instance runs another generation or revision.
func TestObjectLifecycle(t *testing.T) {
	obj := func(annotation string) *unstructured.Unstructured {
		u := instancetest.Member("ConfigMap", "config", "uid-c")
		if annotation != "" {
			u.SetAnnotations(map[string]string{templatesv1.AnnotationLifecycle: annotation})
		}
		return u
	}
	adopted := func(retain bool, generation, revision int64) *templatesv1.TemplateInstance {
		return instancetest.NewInstance("shop", func(ti *templatesv1.TemplateInstance) {
			ti.Generation = 2
			ti.Spec.Adoption = &templatesv1.TemplateInstanceAdoption{HelmRelease: "web", RetainUntilUpgrade: retain}
			ti.Status.Adoption = &templatesv1.AdoptionStatus{Phase: templatesv1.AdoptionAdopted, Generation: generation, Revision: revision,
				Objects: []templatesv1.AdoptionObject{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "demo", Name: "config", Action: templatesv1.AdoptionAdopt}}}
		})
	}
	cases := []struct {
		name     string
		ti       *templatesv1.TemplateInstance
		obj      *unstructured.Unstructured
		revision int64
		want     string
		err      string
	}{
		{"no annotation", instancetest.NewInstance("shop"), obj(""), 1, "", ""},
		{"retain", instancetest.NewInstance("shop"), obj("retain"), 1, "retain", ""},
		{"delete", instancetest.NewInstance("shop"), obj("delete"), 1, "", ""},
		{"a substituted value that is neither", instancetest.NewInstance("shop"), obj("keep"), 1, "", `annotation templates.stencil.dev/lifecycle is "keep": it must be delete or retain`},
		{"adopted, retained until the first upgrade", adopted(true, 2, 3), obj(""), 3, "retain", ""},
		{"adopted, after an upgrade of the spec", adopted(true, 1, 3), obj(""), 3, "", ""},
		{"adopted, after a new revision", adopted(true, 2, 3), obj(""), 4, "", ""},
		{"adopted without retainUntilUpgrade", adopted(false, 2, 3), obj(""), 3, "", ""},
	}
	for _, tc := range cases {
		got, err := instance.ObjectLifecycle(tc.ti, tc.obj, tc.revision)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%s: got %q, %v; want %q, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}
