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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
)

func validCustomTransform() *templates.CustomTransform {
	return &templates.CustomTransform{
		ObjectMeta: metav1.ObjectMeta{Name: "strip-secrets"},
		Spec:       templates.CustomTransformSpec{APIGroup: "apps", Resource: "deployments", Remove: []string{"$.spec.paused"}},
	}
}

func TestValidateCustomTransform(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.CustomTransform)
		want   []string
	}{
		{name: "valid by resource", mutate: func(*templates.CustomTransform) {}},
		{name: "core group", mutate: func(ct *templates.CustomTransform) { ct.Spec.APIGroup, ct.Spec.Resource = "", "services" }},
		{name: "valid by kind", mutate: func(ct *templates.CustomTransform) {
			ct.Spec = templates.CustomTransformSpec{APIGroup: "example.com", Kind: "Widget", Remove: []string{"$.spec.secret"}}
		}},
		{name: "no name", mutate: func(ct *templates.CustomTransform) { ct.Name = "" }, want: []string{"metadata.name: FieldValueRequired"}},
		{name: "name not a DNS subdomain", mutate: func(ct *templates.CustomTransform) { ct.Name = "Strip_Secrets" }, want: []string{"metadata.name: FieldValueInvalid"}},
		{
			// CustomTransforms are cluster-scoped.
			name:   "namespace",
			mutate: func(ct *templates.CustomTransform) { ct.Namespace = "apps" },
			want:   []string{"metadata.namespace: FieldValueForbidden"},
		},
		{
			name:   "group not a DNS subdomain",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.APIGroup = "Apps_Group" },
			want:   []string{"spec.apiGroup: FieldValueInvalid"},
		},
		{
			name:   "resource not a DNS label",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Resource = "Deployments" },
			want:   []string{"spec.resource: FieldValueInvalid"},
		},
		{
			name:   "neither resource nor kind",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Resource = "" },
			want:   []string{"spec.resource: FieldValueRequired"},
		},
		{
			name:   "both resource and kind",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Kind = "Deployment" },
			want:   []string{"spec.kind: FieldValueForbidden"},
		},
		{
			name:   "nothing to remove",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Remove = nil },
			want:   []string{"spec.remove: FieldValueRequired"},
		},
		{
			// The JSONPath parser judges the paths; the strategy composes its errors.
			name:   "path syntax is not judged here",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Remove = []string{"spec.noDollar"} },
		},
		{
			name: "every problem at once",
			mutate: func(ct *templates.CustomTransform) {
				ct.Namespace = "apps"
				ct.Spec = templates.CustomTransformSpec{APIGroup: "-bad-", Resource: "a_b"}
			},
			want: []string{
				"metadata.namespace: FieldValueForbidden",
				"spec.apiGroup: FieldValueInvalid",
				"spec.remove: FieldValueRequired",
				"spec.resource: FieldValueInvalid",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := validCustomTransform()
			tc.mutate(ct)
			checkCauses(t, ValidateCustomTransform(ct), tc.want)
		})
	}
}

func TestValidateCustomTransformUpdate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.CustomTransform)
		want   []string
	}{
		{name: "unchanged", mutate: func(*templates.CustomTransform) {}},
		{name: "new spec", mutate: func(ct *templates.CustomTransform) { ct.Spec.Remove = append(ct.Spec.Remove, "$.spec.replicas") }},
		{name: "renamed", mutate: func(ct *templates.CustomTransform) { ct.Name = "other" }, want: []string{"metadata.name: FieldValueInvalid"}},
		{
			name:   "spec checked as on create",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Resource, ct.Spec.Remove = "", nil },
			want:   []string{"spec.remove: FieldValueRequired", "spec.resource: FieldValueRequired"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := validCustomTransform()
			old.ResourceVersion = "3"
			ct := old.DeepCopy()
			tc.mutate(ct)
			checkCauses(t, ValidateCustomTransformUpdate(ct, old), tc.want)
		})
	}
}
