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

package remove

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestDefaultKindToResource checks the built-in table against client-go's scheme: every kind
// exists in its group, and its resource is the one Kubernetes' own naming rule gives.
func TestDefaultKindToResource(t *testing.T) {
	known := map[schema.GroupKind]bool{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		known[gvk.GroupKind()] = true
	}
	notInClientGo := map[string]bool{"apiextensions.k8s.io": true, "apiregistration.k8s.io": true}
	for gk, resource := range builtinResources {
		if !notInClientGo[gk.group] && !known[schema.GroupKind{Group: gk.group, Kind: gk.kind}] {
			t.Errorf("%s/%s is not a kind of client-go's scheme", gk.group, gk.kind)
		}
		guess, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Group: gk.group, Kind: gk.kind})
		if guess.Resource != resource {
			t.Errorf("%s/%s: table says %q, Kubernetes' rule gives %q", gk.group, gk.kind, resource, guess.Resource)
		}
		if got, ok := DefaultKindToResource(gk.group, gk.kind); !ok || got != resource {
			t.Errorf("DefaultKindToResource(%q, %q) = %q, %v", gk.group, gk.kind, got, ok)
		}
	}
	for _, c := range []struct{ group, kind, want string }{
		{"", "Service", "services"}, {"", "Endpoints", "endpoints"}, {"networking.k8s.io", "Ingress", "ingresses"},
		{"policy", "PodDisruptionBudget", "poddisruptionbudgets"}, {"apps", "Deployment", "deployments"},
	} {
		if got, ok := DefaultKindToResource(c.group, c.kind); !ok || got != c.want {
			t.Errorf("DefaultKindToResource(%q, %q) = %q, %v; want %q", c.group, c.kind, got, ok, c.want)
		}
	}
	for _, c := range [][2]string{{"", "Deployment"}, {"apps", "Service"}, {"example.com", "Widget"}, {"", "service"}} {
		if got, ok := DefaultKindToResource(c[0], c[1]); ok {
			t.Errorf("DefaultKindToResource(%q, %q) = %q, want unknown", c[0], c[1], got)
		}
	}
}
