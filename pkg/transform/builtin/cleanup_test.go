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

package builtin

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/remove"
)

// ksObject decodes a test object the way the pipeline does (numbers as json.Number).
func ksObject(t testing.TB, s string) transform.Object {
	t.Helper()
	var obj transform.Object
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		t.Fatalf("bad test object %s: %v", s, err)
	}
	return obj
}

// ksJSON encodes a value with sorted keys, for comparisons.
func ksJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCleanup encodes cases 1-12 of the KubeStellar acceptance table
// (shared/testdata/kubestellar-cases.md); names say where Stencil deliberately differs.
func TestCleanup(t *testing.T) {
	tests := []struct {
		name     string
		in, want string
		warnings []string // substrings, one per expected warning, in order
	}{
		{
			name: "case1 metadata, last-applied and status removed",
			in: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns",
				"generateName":"cm-","uid":"u","resourceVersion":"7","generation":2,"selfLink":"/x",
				"finalizers":["f"],"ownerReferences":[{"name":"o"}],"managedFields":[{"manager":"m"}],
				"creationTimestamp":"2024-01-01T00:00:00Z","labels":{"a":"b"},
				"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}","keep":"k"}},
				"data":{"x":"y"},"status":{"s":1}}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns",
				"creationTimestamp":"2024-01-01T00:00:00Z","labels":{"a":"b"},"annotations":{"keep":"k"}},
				"data":{"x":"y"}}`,
		},
		{
			name: "case1 metadata fields go whatever their type",
			in:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","generation":"notanint","uid":7}}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`,
		},
		{
			name: "case2 deliberate difference: annotations emptied by cleanup are removed, not left as {}",
			in:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`,
		},
		{
			name: "case2 an already empty annotations map is left alone",
			in:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{}}}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{}}}`,
		},
		{
			name: "case2 absent annotations stay absent",
			in:   `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`,
		},
		{
			name: "case3 deliberate difference: a non-string annotation is reported and kept, the others stay",
			in: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{"bad":5,"keep":"k",
				"kubectl.kubernetes.io/last-applied-configuration":"{}"}}}`,
			want:     `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","annotations":{"bad":5,"keep":"k"}}}`,
			warnings: []string{"v1 ConfigMap cm: metadata.annotations[bad] is a number, not a string; left unchanged"},
		},
		{
			name: "case4 deliberate difference: NodePort Service loses nodePort (deleted, not nulled)",
			in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"type":"NodePort",
				"clusterIP":"10.0.0.1","clusterIPs":["10.0.0.1","fd00::1"],"ipFamilies":["IPv4","IPv6"],
				"ipFamilyPolicy":"PreferDualStack","externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster",
				"sessionAffinity":"None","selector":{"app":"web"},"loadBalancerIP":"1.2.3.4","healthCheckNodePort":32000,
				"ports":[{"port":80,"nodePort":30080},{"port":81}]},"status":{"loadBalancer":{}}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"type":"NodePort",
				"selector":{"app":"web"},"loadBalancerIP":"1.2.3.4","healthCheckNodePort":32000,
				"ports":[{"port":80},{"port":81}]}}`,
		},
		{
			name: "case5 headless Service stays headless",
			in:   `{"apiVersion":"v1","kind":"Service","metadata":{"name":"h"},"spec":{"clusterIP":"None","clusterIPs":["None"]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"h"},"spec":{"clusterIP":"None","clusterIPs":["None"]}}`,
		},
		{
			name: "case6 empty clusterIP removed, clusterIPs reduced to None",
			in:   `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":"","clusterIPs":["10.0.0.1","None"]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIPs":["None"]}}`,
		},
		{
			name: "case6 clusterIPs holding None twice becomes one None",
			in:   `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIPs":["None","None"]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIPs":["None"]}}`,
		},
		{
			name: "case7 empty clusterIPs removed",
			in:   `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIPs":[]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{}}`,
		},
		{
			name: "case8 preserve nodeport keeps nodePort",
			in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"nodeport"}},
				"spec":{"ports":[{"port":80,"nodePort":30080}]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"nodeport"}},
				"spec":{"ports":[{"port":80,"nodePort":30080}]}}`,
		},
		{
			name: "case9 deliberate difference: preserve is case-insensitive",
			in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"NodePort"}},
				"spec":{"ports":[{"nodePort":30080}]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"NodePort"}},
				"spec":{"ports":[{"nodePort":30080}]}}`,
		},
		{
			name: "case9 deliberate difference: preserve is a comma list with spaces trimmed",
			in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"clusterip, nodeport ,other"}},
				"spec":{"ports":[{"nodePort":30080}]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"clusterip, nodeport ,other"}},
				"spec":{"ports":[{"nodePort":30080}]}}`,
		},
		{
			name: "case9 a list without nodeport preserves nothing",
			in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"nodeports,other"}},
				"spec":{"ports":[{"nodePort":30080}]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":"nodeports,other"}},
				"spec":{"ports":[{}]}}`,
		},
		{
			name: "case9 a non-string preserve annotation preserves nothing and is reported",
			in: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":true}},
				"spec":{"ports":[{"nodePort":30080}]}}`,
			want: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"control.kubestellar.io/preserve":true}},
				"spec":{"ports":[{}]}}`,
			warnings: []string{"metadata.annotations[control.kubestellar.io/preserve] is a boolean"},
		},
		{
			name:     "case10 deliberate difference: wrong types are kept and reported",
			in:       `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":5,"clusterIPs":["10.0.0.1",3]}}`,
			want:     `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":5,"clusterIPs":["10.0.0.1",3]}}`,
			warnings: []string{"spec.clusterIP is a number, not a string", "spec.clusterIPs is a list, not a list of strings"},
		},
		{
			name:     "case10 non-object ports and port entries are kept and reported",
			in:       `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":["x",null,{"nodePort":1}]}}`,
			want:     `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":["x",null,{}]}}`,
			warnings: []string{"spec.ports[0] is a string, not an object"},
		},
		{
			name:     "case10 ports not a list",
			in:       `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":{"nodePort":1}}}`,
			want:     `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":{"nodePort":1}}}`,
			warnings: []string{"spec.ports is an object, not a list"},
		},
		{
			name:     "case10 metadata not an object",
			in:       `{"apiVersion":"v1","kind":"Service","metadata":"x","spec":"y","status":{}}`,
			want:     `{"apiVersion":"v1","kind":"Service","metadata":"x","spec":"y"}`,
			warnings: []string{"metadata is a string, not an object", "spec is a string, not an object"},
		},
		{
			name: "case11 Job",
			in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi",
				"labels":{"controller-uid":"u","batch.kubernetes.io/controller-uid":"u","job-name":"pi","batch.kubernetes.io/job-name":"pi"},
				"annotations":{"batch.kubernetes.io/job-tracking":"","other":"o"}},
				"spec":{"selector":{"matchLabels":{"controller-uid":"u"}},"suspend":false,"manualSelector":false,"backoffLimit":4,
				"template":{"metadata":{"labels":{"controller-uid":"u","batch.kubernetes.io/controller-uid":"u","job-name":"pi"}},
				"spec":{"restartPolicy":"Never"}}},"status":{"succeeded":1}}`,
			want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi",
				"labels":{"job-name":"pi","batch.kubernetes.io/job-name":"pi"},"annotations":{"other":"o"}},
				"spec":{"manualSelector":false,"backoffLimit":4,
				"template":{"metadata":{"labels":{"job-name":"pi"}},"spec":{"restartPolicy":"Never"}}}}`,
		},
		{
			name: "case11 Job labels emptied by cleanup are removed",
			in: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi","labels":{"controller-uid":"u"}},
				"spec":{"template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"u"}}}}}`,
			want: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"pi"},"spec":{"template":{"metadata":{}}}}`,
		},
		{
			name: "case12 batch/v1beta1 Job gets no Job cleanup",
			in: `{"apiVersion":"batch/v1beta1","kind":"Job","metadata":{"name":"pi","labels":{"controller-uid":"u"}},
				"spec":{"selector":{},"suspend":true},"status":{}}`,
			want: `{"apiVersion":"batch/v1beta1","kind":"Job","metadata":{"name":"pi","labels":{"controller-uid":"u"}},
				"spec":{"selector":{},"suspend":true}}`,
		},
		{
			name: "case12 v2 Service gets no Service cleanup",
			in:   `{"apiVersion":"v2","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":"10.0.0.1","ports":[{"nodePort":1}]}}`,
			want: `{"apiVersion":"v2","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":"10.0.0.1","ports":[{"nodePort":1}]}}`,
		},
		{
			name: "case12 a Service of another group gets no Service cleanup",
			in:   `{"apiVersion":"example.com/v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":"10.0.0.1"}}`,
			want: `{"apiVersion":"example.com/v1","kind":"Service","metadata":{"name":"s"},"spec":{"clusterIP":"10.0.0.1"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := ksObject(t, tt.in)
			ctx := &transform.Context{}
			CleanObject(ctx, obj)
			if got, want := ksJSON(t, obj), ksJSON(t, ksObject(t, tt.want)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			warnings := ctx.Warnings()
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings %q, want %d matching %q", warnings, len(tt.warnings), tt.warnings)
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], w)
				}
			}
			// Cleaning twice changes nothing more: the server may meet already clean objects.
			again := ksJSON(t, obj)
			CleanObject(nil, obj)
			if got := ksJSON(t, obj); got != again {
				t.Errorf("second cleanup changed the object:\n%s\n%s", again, got)
			}
		})
	}
}

func TestCleanupTransformer(t *testing.T) {
	factory := newCleanupTransformer
	if factory == nil {
		t.Fatal("CleanupTransformer is not registered")
	}
	tr, errs := factory([]byte(`{"apiVersion":"builtin","kind":"CleanupTransformer","metadata":{"name":"clean"}}`), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	objects := []transform.Object{
		ksObject(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"u"},"status":{}}`),
		ksObject(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{"clusterIP":"10.0.0.1"}}`),
	}
	out, err := tr.Transform(&transform.Context{}, objects)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}},{"apiVersion":"v1","kind":"Service","metadata":{"name":"b"},"spec":{}}]`
	if got := ksJSON(t, out); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}

	_, errs = factory([]byte(`{"apiVersion":"builtin","kind":"CleanupTransformer","metadata":{"name":"c"},"preserve":["nodeport"]}`), nil)
	if len(errs) != 1 || errs[0].Field != "preserve" {
		t.Fatalf("unknown field: got %v", errs)
	}
	if !reflect.DeepEqual(ksObject(t, `{"a":1}`), transform.Object{"a": json.Number("1")}) {
		t.Fatal("ksObject must decode numbers as json.Number, as the pipeline does")
	}
}

// TestCleanupThenCustomTransformCase28 is KubeStellar's generic_transport_controller_test
// (case 28): a CustomTransform for ClusterRoles over 100 random objects of four kinds removes the label only from
// ClusterRoles; everything else equals the built-in cleanup.
func TestCleanupThenCustomTransformCase28(t *testing.T) {
	kinds := []struct{ apiVersion, kind string }{
		{"v1", "ConfigMap"}, {"rbac.authorization.k8s.io/v1", "ClusterRole"},
		{"networking.k8s.io/v1", "NetworkPolicy"}, {"autoscaling/v2", "HorizontalPodAutoscaler"},
	}
	rng := rand.New(rand.NewPCG(28, 28))
	rule, errs := remove.RuleFor(&templates.CustomTransform{ObjectMeta: metav1.ObjectMeta{Name: "ct"},
		Spec: templates.CustomTransformSpec{APIGroup: "rbac.authorization.k8s.io", Resource: "clusterroles",
			Remove: []string{`$.metadata.labels["test.kubestellar.io/delete-me"]`}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	rules := []remove.Rule{rule}
	for i := 0; i < 100; i++ {
		k := kinds[rng.IntN(len(kinds))]
		src := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"o%d","uid":"u%d","resourceVersion":"%d",
			"labels":{"test.kubestellar.io/delete-me":"x","test.kubestellar.io/dont-delete-me":"y"}},"spec":{"n":%d},"status":{"s":1}}`,
			k.apiVersion, k.kind, i, i, rng.IntN(1000), rng.IntN(1000))
		obj := ksObject(t, src)
		CleanObject(nil, obj)
		remove.ApplyRules([]transform.Object{obj}, rules, nil)

		want := ksObject(t, src)
		CleanObject(nil, want)
		if k.kind == "ClusterRole" {
			delete(want["metadata"].(map[string]any)["labels"].(map[string]any), "test.kubestellar.io/delete-me")
		}
		if got, want := ksJSON(t, obj), ksJSON(t, want); got != want {
			t.Fatalf("object %d (%s):\ngot  %s\nwant %s", i, k.kind, got, want)
		}
	}
}
