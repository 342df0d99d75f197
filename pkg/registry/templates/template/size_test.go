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

package template

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestStoredSizeLimit checks that a template etcd would refuse is refused by validation, at
// the field that holds most of its bytes, on create and on update alike.
func TestStoredSizeLimit(t *testing.T) {
	s := newTestStrategy()
	object := func(size int) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"` + strings.Repeat("v", size) + `"}}`
	}
	cases := []struct {
		name   string
		mutate func(*templates.Template)
		want   []string
	}{
		{"just below", func(tpl *templates.Template) { tpl.Objects = raw(object(MaxStoredBytes - 4096)) }, nil},
		{"objects", func(tpl *templates.Template) { tpl.Objects = raw(object(MaxStoredBytes/2), object(MaxStoredBytes/2)) }, []string{"objects: FieldValueTooLong"}},
		{"message", func(tpl *templates.Template) { tpl.Message = strings.Repeat("m", MaxStoredBytes) }, []string{"message: FieldValueTooLong"}},
		// JSON escaping counts: each control character is stored as six bytes.
		{"escaped message", func(tpl *templates.Template) { tpl.Message = strings.Repeat("\x01", MaxStoredBytes/5) }, []string{"message: FieldValueTooLong"}},
		{"transformer configs", func(tpl *templates.Template) {
			tpl.Transformers = raw(`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"a":"` + strings.Repeat("x", MaxStoredBytes) + `"}}`)
			tpl.TransformerOrder = nil
		}, []string{"transformers: FieldValueTooLong"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := newTemplate()
			tc.mutate(tpl)
			for _, errs := range []field.ErrorList{s.Validate(context.Background(), tpl), s.ValidateUpdate(context.Background(), tpl, newTemplate())} {
				var tooLong []string
				for _, e := range errs {
					if e.Type == field.ErrorTypeTooLong {
						tooLong = append(tooLong, e.Field+": "+string(e.Type))
						if !strings.Contains(e.Detail, "at most 1048576 bytes") {
							t.Errorf("detail %q does not state the limit", e.Detail)
						}
					}
				}
				if !slices.Equal(tooLong, tc.want) {
					t.Fatalf("size errors %v, want %v (all errors: %v)", tooLong, tc.want, errs)
				}
			}
		})
	}
}
