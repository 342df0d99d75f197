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

package process

import (
	"strings"
	"sync"
	"testing"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// labelled wraps objects into one of our Templates with objectLabels app=${APP} and a ${L} key.
func labelled(dialect Dialect, objects string) string {
	field := "objectLabels"
	apiVersion := "templates.stencil.dev/v1alpha1"
	if dialect == OpenShift {
		field, apiVersion = "labels", "template.openshift.io/v1"
	}
	return `{"apiVersion":"` + apiVersion + `","kind":"Template","metadata":{"name":"t"},` +
		`"parameters":[{"name":"APP","value":"web"},{"name":"L","value":"tier"},{"name":"KIND","value":"Deployment"},` +
		`{"name":"META","value":"{\"name\":\"m\"}"},{"name":"NUL","value":"null"}],` +
		`"` + field + `":{"app":"${APP}","${L}":"front"},"objects":` + objects + `}`
}

func TestObjectLabels(t *testing.T) {
	const labels = `"app":"web","team":"a","tier":"front"`
	cases := []struct {
		name    string
		dialect Dialect
		object  string
		want    string
	}{
		{"metadata created", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap"}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{` + labels + `}}}`},
		{"labels created", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{` + labels + `}}}`},
		{"merged over existing labels in place", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"x":"1","app":"old"}}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"x":"1","app":"web","team":"a","tier":"front"}}}`},
		{"null labels replaced", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":null,"name":"c"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{` + labels + `},"name":"c"}}`},
		{"deployment selector and pod template", Stencil,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"run":"d"}},"template":{"metadata":{"labels":{"run":"d"}}}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{` + labels + `}},"spec":{"selector":{"matchLabels":{"run":"d",` + labels + `}},"template":{"metadata":{"labels":{"run":"d",` + labels + `}}}}}`},
		{"matchLabels created beside matchExpressions", Stencil,
			`{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"selector":{"matchExpressions":[]},"template":{}}}`,
			`{"apiVersion":"apps/v1","kind":"StatefulSet","spec":{"selector":{"matchExpressions":[],"matchLabels":{` + labels + `}},"template":{"metadata":{"labels":{` + labels + `}}}},"metadata":{"labels":{` + labels + `}}}`},
		{"daemonset of extensions", Stencil,
			`{"apiVersion":"extensions/v1beta1","kind":"DaemonSet","spec":{"template":{"metadata":{}}}}`,
			`{"apiVersion":"extensions/v1beta1","kind":"DaemonSet","spec":{"template":{"metadata":{"labels":{` + labels + `}}}},"metadata":{"labels":{` + labels + `}}}`},
		{"replication controller selector map", Stencil,
			`{"apiVersion":"v1","kind":"ReplicationController","spec":{"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}}}}}`,
			`{"apiVersion":"v1","kind":"ReplicationController","spec":{"selector":{"a":"b",` + labels + `},"template":{"metadata":{"labels":{"a":"b",` + labels + `}}}},"metadata":{"labels":{` + labels + `}}}`},
		{"service selector", Stencil,
			`{"apiVersion":"v1","kind":"Service","spec":{"selector":{"a":"b"}}}`,
			`{"apiVersion":"v1","kind":"Service","spec":{"selector":{"a":"b",` + labels + `}},"metadata":{"labels":{` + labels + `}}}`},
		{"service without selector stays without", Stencil,
			`{"apiVersion":"v1","kind":"Service","spec":{"type":"ExternalName"}}`,
			`{"apiVersion":"v1","kind":"Service","spec":{"type":"ExternalName"},"metadata":{"labels":{` + labels + `}}}`},
		{"job pod template", Stencil,
			`{"apiVersion":"batch/v1","kind":"Job","spec":{"template":{"spec":{}}}}`,
			`{"apiVersion":"batch/v1","kind":"Job","spec":{"template":{"spec":{},"metadata":{"labels":{` + labels + `}}}},"metadata":{"labels":{` + labels + `}}}`},
		{"cronjob job template", Stencil,
			`{"apiVersion":"batch/v1","kind":"CronJob","spec":{"jobTemplate":{"spec":{"template":{"metadata":{"labels":{}}}}}}}`,
			`{"apiVersion":"batch/v1","kind":"CronJob","spec":{"jobTemplate":{"spec":{"template":{"metadata":{"labels":{` + labels + `}}}}}},"metadata":{"labels":{` + labels + `}}}`},
		{"custom kind named Service is not touched", Stencil,
			`{"apiVersion":"serving.knative.dev/v1","kind":"Service","spec":{"selector":{"a":"b"}}}`,
			`{"apiVersion":"serving.knative.dev/v1","kind":"Service","spec":{"selector":{"a":"b"}},"metadata":{"labels":{` + labels + `}}}`},
		{"openshift: metadata only", OpenShift,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"run":"d"}},"template":{"metadata":{"labels":{"run":"d"}}}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{` + labels + `}},"spec":{"selector":{"matchLabels":{"run":"d"}},"template":{"metadata":{"labels":{"run":"d"}}}}}`},
		{"openshift: groupified", OpenShift,
			`{"apiVersion":"v1","kind":"DeploymentConfig","spec":{"selector":{"run":"d"}}}`,
			`{"apiVersion":"apps.openshift.io/v1","kind":"DeploymentConfig","spec":{"selector":{"run":"d"}},"metadata":{"labels":{` + labels + `}}}`},
		{"parameterised kind takes the slow path", Stencil,
			`{"apiVersion":"apps/v1","kind":"${KIND}","spec":{"selector":{"matchLabels":{}},"template":{}}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"selector":{"matchLabels":{` + labels + `}},"template":{"metadata":{"labels":{` + labels + `}}}},"metadata":{"labels":{` + labels + `}}}`},
		{"typed metadata takes the slow path", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":"${{META}}"}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","labels":{` + labels + `}}}`},
		{"typed null metadata is created", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":"${{NUL}}"}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{` + labels + `}}}`},
		{"substituted label key", Stencil,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"${L}":"old","$(APP)":"x"}}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"tier":"front","web":"x","app":"web","team":"a"}}}`},
		{"openshift: parameterised apiVersion groupified after substitution", OpenShift,
			`{"apiVersion":"${L}","kind":"Route"}`,
			`{"apiVersion":"route.openshift.io/tier","kind":"Route","metadata":{"labels":{` + labels + `}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, errs := processCase(t, labelled(tc.dialect, "["+tc.object+"]"), Request{Labels: map[string]string{"team": "a"}})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if got := objectsOf(r); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			// Without labels nothing but groupification changes.
			plain := strings.NewReplacer(`"app":"${APP}","${L}":"front"`, ``).Replace(labelled(tc.dialect, "["+tc.object+"]"))
			r, errs = processCase(t, plain, Request{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if strings.Contains(objectsOf(r), `"app":"web"`) {
				t.Errorf("labels added without labels: %s", objectsOf(r))
			}
		})
	}
}

func TestCallerLabelsWinAndAreValidated(t *testing.T) {
	template := labelled(Stencil, `[{"apiVersion":"v1","kind":"ConfigMap","metadata":{}}]`)
	r, errs := processCase(t, template, Request{Labels: map[string]string{"app": "mine"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if want := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"app":"mine","tier":"front"}}}`; objectsOf(r) != want {
		t.Errorf("got  %s\nwant %s", objectsOf(r), want)
	}
	_, errs = processCase(t, template, Request{Labels: map[string]string{"bad key!": "x"},
		Parameters: map[string]string{"APP": "not valid!"}})
	errorsContain(t, errs, `objectLabels: Invalid value: "not valid!"`, `labels: Invalid value: "bad key!"`)
}

// TestPlainLabelsAreWhatValidateLabelsAccepts checks the shortcut of validateLabels against
// the API's label checks: for keys, with a prefix or without, and for values, plain means
// valid.
func TestPlainLabelsAreWhatValidateLabelsAccepts(t *testing.T) {
	alphabet := []string{"a", "Z", "0", "-", "_", ".", "/", " ", "é", "$"}
	parts := []string{"", strings.Repeat("a", 63), strings.Repeat("a", 64), "a" + strings.Repeat("-", 61) + "b",
		"app.openshift.io/runtime", "a-b.c0/d", "a.-b/c", "a-.b/c", "a..b/c", ".a/b", "a./b", "A.b/c", "a_b/c", "a/b/c",
		"a/", "/a", "a.b/-c", strings.Repeat("a", 253) + "/b", strings.Repeat("a", 254) + "/b",
		strings.Repeat("a.", 126) + "a/b", "a/" + strings.Repeat("b", 64)}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		parts = append(parts, prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 3)
	plain := 0
	for _, s := range parts {
		keyErrs := metav1validation.ValidateLabelName(s, field.NewPath("k"))
		valueErrs := validation.IsValidLabelValue(s)
		if !strings.Contains(s, "/") && plainLabelPart(s, false) != (len(keyErrs) == 0) {
			t.Errorf("key %q: plain %v, ValidateLabelName %v", s, plainLabelPart(s, false), keyErrs)
		}
		if plainLabelKey(s) != (len(keyErrs) == 0) {
			t.Errorf("key %q: plain key %v, ValidateLabelName %v", s, plainLabelKey(s), keyErrs)
		}
		if plainLabelPart(s, true) != (len(valueErrs) == 0) {
			t.Errorf("value %q: plain %v, IsValidLabelValue %v", s, plainLabelPart(s, true), valueErrs)
		}
		if plainLabelPart(s, false) {
			plain++
		}
		if errs := validateLabels(map[string]string{s: s}, field.NewPath("labels")); len(errs) != len(metav1validation.ValidateLabels(map[string]string{s: s}, field.NewPath("labels"))) {
			t.Errorf("%q: validateLabels %v", s, errs)
		}
	}
	if plain == 0 {
		t.Fatal("no plain label among the cases")
	}
}

// TestFixedLabelsSharedByRequests runs one plan whose labels take no values (its requests
// share one set of labels, Plan.fixedLabels) from many goroutines at once, with and without
// labels of the request, on objects that take the fast path and the slow one: each answer is
// what a plan of its own gives (-race in make unit checks nothing writes what they share).
func TestFixedLabelsSharedByRequests(t *testing.T) {
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"t"},` +
		`"parameters":[{"name":"KIND","value":"Deployment"}],"objectLabels":{"app":"web","tier":"front"},"objects":[` +
		`{"apiVersion":"v1","kind":"ConfigMap"},` +
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"labels":{"x":"1","app":"old"}}},` +
		`{"apiVersion":"apps/v1","kind":"${KIND}","spec":{"selector":{"matchLabels":{}},"template":{}}}]}`
	requests := []Request{{}, {Labels: map[string]string{"app": "mine", "team": "a"}}, {Parameters: map[string]string{"KIND": "StatefulSet"}}}
	want := make([]string, len(requests))
	for i, req := range requests {
		r, errs := processCase(t, template, req)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		want[i] = objectsOf(r)
	}
	tmpl, dialect, err := DecodeTemplate([]byte(template))
	if err != nil {
		t.Fatal(err)
	}
	plan, errs := Compile(tmpl, dialect)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if plan.fixedLabels == nil {
		t.Fatal("a plan whose labels take no values builds them for each request")
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 50 {
				i := (g + n) % len(requests)
				r, errs := plan.Execute(requests[i])
				if len(errs) > 0 {
					t.Error(errs)
					return
				}
				if got := objectsOf(r); got != want[i] {
					t.Errorf("request %d: got %s\nwant %s", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
