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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
)

// decodeList decodes a JSON array of test objects.
func decodeList(t testing.TB, s string) []map[string]any {
	t.Helper()
	var list []map[string]any
	for _, item := range decode(t, `{"items":`+s+`}`)["items"].([]any) {
		list = append(list, item.(map[string]any))
	}
	return list
}

func rule(name, group, resource, kind string, paths ...string) Rule {
	r := Rule{Name: name, APIGroup: group, Resource: resource, Kind: kind}
	for _, p := range paths {
		r.Paths = append(r.Paths, mustParse(p))
	}
	return r
}

func TestApplyRules(t *testing.T) {
	const objects = `[
		{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"test.kubestellar.io/test-label":"x","keep":"k"}},"spec":{"replicas":1,"paused":false}},
		{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{"replicas":1}},
		{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
		{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`
	tests := []struct {
		name  string
		rules []Rule
		want  string
	}{
		{
			name:  "case29 CT on apps/deployments removes the label",
			rules: []Rule{rule("ct", "apps", "deployments", "", `$.metadata.labels["test.kubestellar.io/test-label"]`)},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"keep":"k"}},"spec":{"replicas":1,"paused":false}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{"replicas":1}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`,
		},
		{
			name:  "the version is ignored, as in KubeStellar",
			rules: []Rule{rule("ct", "apps", "deployments", "", `$.spec.replicas`)},
			want: `[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"test.kubestellar.io/test-label":"x","keep":"k"}},"spec":{"paused":false}},
				{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"name":"d2"},"spec":{}},
				{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}},
				{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"color":"red"}}]`,
		},
		{
			name: "core group binds by resource; the group must match",
			rules: []Rule{
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
			rules: []Rule{
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
			rules: []Rule{
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
			objs := decodeList(t, objects)
			ApplyRules(objs, tt.rules, nil)
			if got, want := encode(t, objs), encode(t, decodeList(t, tt.want)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestApplyRulesOrder shows why name order matters: with index paths, the second removal
// sees the array the first one left.
func TestApplyRulesOrder(t *testing.T) {
	for _, names := range [][2]string{{"a", "b"}, {"b", "a"}} {
		objs := decodeList(t, `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"x":[0,1,2]}]`)
		rules := []Rule{rule(names[0], "", "configmaps", "", `$.x[0]`), rule(names[1], "", "", "ConfigMap", `$.x[-1]`)}
		ApplyRules(objs, rules, func(group, kind string) (string, bool) { return "configmaps", kind == "ConfigMap" })
		if got, want := encode(t, objs[0]["x"]), `[1]`; got != want {
			t.Fatalf("rules %v: x = %s, want %s", names, got, want)
		}
	}
}

func TestRuleFor(t *testing.T) {
	// Case 30's bad path and case 21's "$": rejected when the CustomTransform is created,
	// naming spec.remove[i] (KubeStellar only reports them in status, lazily).
	ct := &templates.CustomTransform{
		ObjectMeta: metav1.ObjectMeta{Name: "ct"},
		Spec: templates.CustomTransformSpec{APIGroup: "apps", Resource: "deployments",
			Remove: []string{`$.metadata.labels["a"]`, `$`, `$.a..b`, `$.spec.ports[*].nodePort`}},
	}
	rule, errs := RuleFor(ct)
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
	// The paths that parse are still in the rule, so a server can apply the valid removals of
	// an object stored before validation got stricter, as KubeStellar does.
	if rule.Name != "ct" || rule.APIGroup != "apps" || rule.Resource != "deployments" || rule.Kind != "" ||
		len(rule.Paths) != 2 || rule.Paths[1].String() != `$.spec.ports[*].nodePort` {
		t.Fatalf("RuleFor = %+v", rule)
	}
}
