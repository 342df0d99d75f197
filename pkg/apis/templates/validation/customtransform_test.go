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
			// As the kinds of CustomResourceDefinitions: mixed case, otherwise a DNS-1035 label.
			name: "kinds",
			mutate: func(ct *templates.CustomTransform) {
				ct.Spec = templates.CustomTransformSpec{Kind: "HorizontalPodAutoscaler", Remove: []string{"$.a"}}
			},
		},
		{name: "kind with a dot", mutate: kind("Widget.v1"), want: []string{"spec.kind: FieldValueInvalid"}},
		{name: "kind starting with a digit", mutate: kind("1Widget"), want: []string{"spec.kind: FieldValueInvalid"}},
		{name: "kind of 64 characters", mutate: kind("K" + strings.Repeat("k", 63)), want: []string{"spec.kind: FieldValueInvalid"}},
		{name: "kind of 63 characters", mutate: kind("K" + strings.Repeat("k", 62))},
		{name: "kind not UTF-8", mutate: kind("Wid\xffget"), want: []string{"spec.kind: FieldValueInvalid"}},
		{name: "kind not ASCII", mutate: kind("Wïdget"), want: []string{"spec.kind: FieldValueInvalid"}},
		{name: "100 paths", mutate: paths(100, 10)},
		{name: "101 paths", mutate: paths(101, 10), want: []string{"spec.remove: FieldValueTooMany"}},
		{name: "10,000 paths", mutate: paths(10000, 10), want: []string{"spec.remove: FieldValueTooMany"}},
		{name: "a path of 1024 bytes", mutate: paths(1, 1024)},
		{name: "a path of 1025 bytes", mutate: paths(1, 1025), want: []string{"spec.remove[0]: FieldValueTooLong"}},
		{name: "a path of 1 MB", mutate: paths(2, 1<<20), want: []string{"spec.remove[0]: FieldValueTooLong", "spec.remove[1]: FieldValueTooLong"}},
		{
			name:   "a path not UTF-8",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Remove = []string{"$.ok", "$.a\xc3"} },
			want:   []string{"spec.remove[1]: FieldValueInvalid"},
		},
		{
			name:   "a path twice",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Remove = []string{"$.a", "$.b", "$.a"} },
			want:   []string{"spec.remove[2]: FieldValueDuplicate"},
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

// kind binds the CustomTransform to kind.
func kind(kind string) func(*templates.CustomTransform) {
	return func(ct *templates.CustomTransform) { ct.Spec.Resource, ct.Spec.Kind = "", kind }
}

// paths gives the CustomTransform n distinct paths of size bytes each.
func paths(n, size int) func(*templates.CustomTransform) {
	return func(ct *templates.CustomTransform) {
		ct.Spec.Remove = make([]string, n)
		for i := range ct.Spec.Remove {
			p := fmt.Sprintf("$.f%d", i)
			ct.Spec.Remove[i] = p + strings.Repeat("x", size-len(p))
		}
	}
}

func TestRemovePathsWithinLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths func(*templates.CustomTransform)
		want  bool
	}{
		{"100 short paths", paths(100, 10), true},
		{"101 paths", paths(101, 10), false},
		{"a long path", paths(1, MaxRemovePathLength+1), false},
		{"not UTF-8", func(ct *templates.CustomTransform) { ct.Spec.Remove = []string{"$.\xff"} }, false},
	} {
		ct := validCustomTransform()
		tc.paths(ct)
		if got := RemovePathsWithinLimits(ct.Spec.Remove); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
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
