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

package adopt

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestReadApplySet(t *testing.T) {
	parent := Ref{GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, Namespace: "shop", Name: "web-set"}
	id := ApplySetID(parent)
	if !strings.HasPrefix(id, "applyset-") || !strings.HasSuffix(id, "-v1") || len(id) != len("applyset-")+43+len("-v1") {
		t.Fatalf("id %q", id)
	}
	set, err := ReadApplySet(parent, map[string]string{ApplySetIDLabel: id},
		map[string]string{ApplySetToolingAnnotation: "kubectl/v1.37.1", ApplySetGroupKindsAnnotation: "ConfigMap,Deployment.apps,Service", ApplySetNamespacesAnnotation: "extra"})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.GroupKinds) != 3 || set.GroupKinds[1] != (schema.GroupKind{Group: "apps", Kind: "Deployment"}) ||
		strings.Join(set.Namespaces, ",") != "extra,shop" || set.MemberSelector() != "applyset.kubernetes.io/part-of="+id {
		t.Errorf("got %+v", set)
	}
	old, err := ReadApplySet(parent, map[string]string{ApplySetIDLabel: id},
		map[string]string{ApplySetToolingAnnotation: "kubectl/v1.27.0", "applyset.kubernetes.io/contains-group-resources": "deployments.apps,configmaps"})
	if err != nil || len(old.GroupResources) != 2 || old.GroupResources[0] != (schema.GroupResource{Group: "apps", Resource: "deployments"}) {
		t.Errorf("older annotation: %+v, %v", old, err)
	}

	other := parent
	other.Name = "other"
	for _, tc := range []struct {
		name                string
		labels, annotations map[string]string
		want                string
	}{
		{"no id", nil, nil, "it has no applyset.kubernetes.io/id label"},
		{"another parent's id", map[string]string{ApplySetIDLabel: ApplySetID(other)}, nil, "not its own id"},
		{"no tooling", map[string]string{ApplySetIDLabel: id}, nil, "it has no applyset.kubernetes.io/tooling annotation"},
		{"no kinds", map[string]string{ApplySetIDLabel: id}, map[string]string{ApplySetToolingAnnotation: "kubectl/v1.37.1"}, "listing its members' kinds"},
	} {
		if _, err := ReadApplySet(parent, tc.labels, tc.annotations); err == nil || !strings.Contains(err.Error(), tc.want) ||
			!strings.Contains(err.Error(), "ApplySet parent Secret shop/web-set") {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
