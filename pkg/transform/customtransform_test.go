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

package transform

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"

	"stencil.dev/stencil/pkg/transform/jsonpath"
)

func rule(name, group, resource, kind string, paths ...string) RemovalRule {
	r := RemovalRule{Name: name, APIGroup: group, Resource: resource, Kind: kind}
	for _, p := range paths {
		r.Paths = append(r.Paths, jsonpath.MustParse(p))
	}
	return r
}

func TestApplyRemovals(t *testing.T) {
	const objects = `[
		{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"test.kubestellar.io/test-label":"x","keep":"k"}},"spec":{"replicas":1,"paused":false}},
		{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{"replicas":1}},
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
		{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`
	tests := []struct {
		name  string
		rules []RemovalRule
		want  string
	}{
		{
			name:  "case29 CT on apps/deployments removes the label",
			rules: []RemovalRule{rule("ct", "apps", "deployments", "", `$.metadata.labels["test.kubestellar.io/test-label"]`)},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"keep":"k"}},"spec":{"replicas":1,"paused":false}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{"replicas":1}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`,
		},
		{
			name:  "the version is ignored, as in KubeStellar",
			rules: []RemovalRule{rule("ct", "apps", "deployments", "", `$.spec.replicas`)},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"test.kubestellar.io/test-label":"x","keep":"k"}},"spec":{"paused":false}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`,
		},
		{
			name: "core group binds by resource; the group must match",
			rules: []RemovalRule{
				rule("a", "", "configmaps", "", `$.data.a`),
				rule("b", "apps", "configmaps", "", `$.data.b`),
			},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"test.kubestellar.io/test-label":"x","keep":"k"}},"spec":{"replicas":1,"paused":false}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{"replicas":1}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`,
		},
		{
			name: "a custom kind binds by kind; by resource only through a mapping that knows it",
			rules: []RemovalRule{
				rule("by-kind", "example.com", "", "Widget", `$.spec.size`),
				rule("by-resource", "example.com", "widgets", "", `$.spec.color`),
				rule("wrong-case", "example.com", "", "widget", `$.metadata`),
			},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"test.kubestellar.io/test-label":"x","keep":"k"}},"spec":{"replicas":1,"paused":false}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{"replicas":1}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"}}]`,
		},
		{
			// Case 30: several CustomTransforms for one group/resource all apply (KubeStellar
			// concatenates them in indexer order and warns; Stencil applies them in name order,
			// which matters when one removes a parent of another's path).
			name: "case30 several rules for one resource all apply, in name order",
			rules: []RemovalRule{
				rule("b", "apps", "deployments", "", `$.spec.replicas`),
				rule("a", "apps", "", "Deployment", `$.spec.paused`, `$.metadata.labels[*]`),
			},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{}},"spec":{}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := ksList(t, objects)
			ApplyRemovals(objs, tt.rules, nil)
			if got, want := ksJSON(t, objs), ksJSON(t, ksList(t, tt.want)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestApplyRemovalsOrder shows why name order matters: with index paths, the second removal
// sees the array the first one left.
func TestApplyRemovalsOrder(t *testing.T) {
	for _, names := range [][2]string{{"a", "b"}, {"b", "a"}} {
		objs := ksList(t, `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":[0,1,2]}]`)
		rules := []RemovalRule{rule(names[0], "", "configmaps", "", `$.x[0]`), rule(names[1], "", "", "ConfigMap", `$.x[-1]`)}
		ApplyRemovals(objs, rules, func(group, kind string) (string, bool) { return "configmaps", kind == "ConfigMap" })
		if got, want := ksJSON(t, objs[0]["x"]), `[1]`; got != want {
			t.Fatalf("rules %v: x = %s, want %s", names, got, want)
		}
	}
}

// TestApplyRemovalsCase28 is KubeStellar's generic_transport_controller_test (case 28): a CustomTransform
// for ClusterRoles over 100 random objects of four kinds removes the label only from
// ClusterRoles; everything else equals the built-in cleanup.
func TestApplyRemovalsCase28(t *testing.T) {
	kinds := []struct{ apiVersion, kind string }{
		{"v1", "ConfigMap"}, {"rbac.authorization.k8s.io/v1", "ClusterRole"},
		{"networking.k8s.io/v1", "NetworkPolicy"}, {"autoscaling/v2", "HorizontalPodAutoscaler"},
	}
	rng := rand.New(rand.NewPCG(28, 28))
	rules := []RemovalRule{rule("ct", "rbac.authorization.k8s.io", "clusterroles", "", `$.metadata.labels["test.kubestellar.io/delete-me"]`)}
	for i := 0; i < 100; i++ {
		k := kinds[rng.IntN(len(kinds))]
		src := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"o%d","uid":"u%d","resourceVersion":"%d",
			"labels":{"test.kubestellar.io/delete-me":"x","test.kubestellar.io/dont-delete-me":"y"}},"spec":{"n":%d},"status":{"s":1}}`,
			k.apiVersion, k.kind, i, i, rng.IntN(1000), rng.IntN(1000))
		obj := ksObject(t, src)
		Cleanup(nil, obj)
		ApplyRemovals([]Object{obj}, rules, nil)

		want := ksObject(t, src)
		Cleanup(nil, want)
		if k.kind == "ClusterRole" {
			delete(want["metadata"].(map[string]any)["labels"].(map[string]any), "test.kubestellar.io/delete-me")
		}
		if got, want := ksJSON(t, obj), ksJSON(t, want); got != want {
			t.Fatalf("object %d (%s):\ngot  %s\nwant %s", i, k.kind, got, want)
		}
	}
}

func TestValidateRemovalPaths(t *testing.T) {
	// Case 30's bad path and case 21's "$": rejected when the CustomTransform is created,
	// naming spec.remove[i] (KubeStellar only reports them in status, lazily).
	errs := ValidateRemovalPaths([]string{`$.metadata.labels["a"]`, `$`, `$.a..b`, `$.spec.ports[*].nodePort`}, field.NewPath("spec", "remove"))
	want := []string{
		`spec.remove[1]: Invalid value: "$": invalid JSONPath at byte 1: "$" alone identifies the whole object`,
		`spec.remove[2]: Invalid value: "$.a..b": invalid JSONPath at byte 3: descendant segments`,
	}
	if len(errs) != len(want) {
		t.Fatalf("got %v", errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i].Error(), w)
		}
	}
	// The paths that parse are still returned, so a server can apply the valid removals of
	// an object stored before validation got stricter, as KubeStellar does.
	paths, errs := ParseRemovalPaths([]string{`$.a`, `$`, `$.b`}, field.NewPath("spec", "remove"))
	if len(errs) != 1 || len(paths) != 2 || paths[1].String() != `$.b` {
		t.Fatalf("ParseRemovalPaths = %v, %v", paths, errs)
	}
}

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
