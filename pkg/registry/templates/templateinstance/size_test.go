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
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// inlineTemplate is an OpenShift template whose one ConfigMap holds size bytes of data.
func inlineTemplate(size int) *runtime.RawExtension {
	return &runtime.RawExtension{Raw: []byte(`{"apiVersion":"template.openshift.io/v1","kind":"Template","metadata":{"name":"big"},` +
		`"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"` + strings.Repeat("v", size) + `"}}]}`)}
}

// TestStoredSizeLimit checks that an instance etcd would refuse (issue 24: a 1.5 to 2.9 MB
// inline template was a 500 "request is too large") is refused by validation with a 422 at
// the field that holds most of its bytes, on create and on update alike.
func TestStoredSizeLimit(t *testing.T) {
	s := NewStrategy(runtime.NewScheme(), Capabilities{})
	cases := []struct {
		name   string
		mutate func(*templates.TemplateInstance)
		want   []string
	}{
		{"just below", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef, ti.Spec.Template = nil, inlineTemplate(MaxStoredBytes-4096)
		}, nil},
		{"inline template of 1.5 MB", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef, ti.Spec.Template = nil, inlineTemplate(1_500_000)
		}, []string{"spec.template: FieldValueTooLong"}},
		{"inline template of 2.9 MB", func(ti *templates.TemplateInstance) {
			ti.Spec.TemplateRef, ti.Spec.Template = nil, inlineTemplate(2_900_000)
		}, []string{"spec.template: FieldValueTooLong"}},
		{"parameter values", func(ti *templates.TemplateInstance) {
			for i := range 4 {
				ti.Spec.Parameters[fmt.Sprint("P", i)] = strings.Repeat("x", MaxStoredBytes/4)
			}
		}, []string{"spec.parameters: FieldValueTooLong"}},
		// JSON escaping counts: each control character is stored as six bytes.
		{"escaped properties", func(ti *templates.TemplateInstance) {
			ti.Spec.Properties = map[string]string{"p": strings.Repeat("\x01", MaxStoredBytes/5)}
		}, []string{"spec.properties: FieldValueTooLong"}},
		{"managed fields", func(ti *templates.TemplateInstance) {
			ti.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:x":"` + strings.Repeat("y", MaxStoredBytes) + `"}`)}}}
		}, []string{"metadata: FieldValueTooLong"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ti := instance()
			tc.mutate(ti)
			for _, errs := range []field.ErrorList{s.Validate(context.Background(), ti), s.ValidateUpdate(context.Background(), ti, instance())} {
				if got := tooLong(t, errs); !slices.Equal(got, tc.want) {
					t.Fatalf("size errors %v, want %v (all errors: %v)", got, tc.want, errs)
				}
			}
		})
	}
}

// tooLong lists the size errors of errs, checking that each states the limit.
func tooLong(t *testing.T, errs field.ErrorList) []string {
	t.Helper()
	var out []string
	for _, e := range errs {
		if e.Type == field.ErrorTypeTooLong {
			out = append(out, e.Field+": "+string(e.Type))
			if !strings.Contains(e.Detail, "at most 1048576 bytes") || !strings.Contains(e.Detail, "TemplateInstance") {
				t.Errorf("detail %q does not state the limit", e.Detail)
			}
		}
	}
	return out
}
