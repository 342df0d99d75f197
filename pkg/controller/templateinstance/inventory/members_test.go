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

package inventory

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPlaceAndLabel(t *testing.T) {
	namespaced := &meta.RESTMapping{Scope: meta.RESTScopeNamespace}
	cluster := &meta.RESTMapping{Scope: meta.RESTScopeRoot}
	for _, tc := range []struct {
		name, own string
		mapping   *meta.RESTMapping
		want      string
	}{
		{"namespaced without a namespace gets the instance's", "", namespaced, "team"},
		{"namespaced keeps its own", "other", namespaced, "other"},
		{"cluster-scoped gets none", "other", cluster, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{}}
			obj.SetNamespace(tc.own)
			obj.SetLabels(map[string]string{"app": "x"})
			Place(obj, tc.mapping, "team")
			Label(obj, "applyset-id")
			if obj.GetNamespace() != tc.want {
				t.Errorf("namespace %q, want %q", obj.GetNamespace(), tc.want)
			}
			if l := obj.GetLabels(); l["app"] != "x" || l[PartOfLabel] != "applyset-id" {
				t.Errorf("labels %v", l)
			}
		})
	}
}
