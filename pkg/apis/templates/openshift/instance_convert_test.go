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

package openshift

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

const openshiftTemplate = `{"kind":"Template","apiVersion":"template.openshift.io/v1","metadata":{"name":"t"},` +
	`"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"}}],"parameters":[{"name":"NAME","required":true}]}`

// TestInstanceConversion converts instances to OpenShift's form and back: what the form shows,
// whether it needs the annotation, and that nothing is lost.
func TestInstanceConversion(t *testing.T) {
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", Message: "all ready", ObservedGeneration: 2,
		LastTransitionTime: metav1.Unix(1700000000, 0)}
	failed := metav1.Condition{Type: "Failed", Status: metav1.ConditionFalse, Reason: "Applied", LastTransitionTime: metav1.Unix(1700000000, 0)}
	progressing := metav1.Condition{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "Applied", LastTransitionTime: metav1.Unix(1700000000, 0)}
	secret := func(name string) templates.ParametersSource {
		return templates.ParametersSource{SecretRef: &templates.SecretReference{Name: name}}
	}
	for _, tc := range []struct {
		name       string
		in         templates.TemplateInstance
		annotation bool
		check      func(t *testing.T, out *TemplateInstance)
	}{{
		name: "OpenShift's instance",
		in: templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{
			Template: &runtime.RawExtension{Raw: []byte(openshiftTemplate)}, ParametersFrom: []templates.ParametersSource{secret("values")},
			Requester: &templates.TemplateInstanceRequester{Username: "alice", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}},
		}},
		check: func(t *testing.T, out *TemplateInstance) {
			if out.Spec.Template.Name != "t" || len(out.Spec.Template.Objects) != 1 || out.Spec.Secret == nil || out.Spec.Secret.Name != "values" ||
				out.Spec.Requester.Username != "alice" || out.Spec.Requester.Extra["scopes"][0] != "a" {
				t.Errorf("got %+v", out.Spec)
			}
		},
	}, {
		name: "templateRef, values, sources, labels, properties",
		in: templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{
			TemplateRef: &templates.TemplateReference{Name: "stored"}, Parameters: map[string]string{"A": "1"},
			ParametersFrom: []templates.ParametersSource{secret("first"), secret("last")},
			Labels:         map[string]string{"app": "x"}, Properties: map[string]string{"Replicas": "2"},
		}},
		annotation: true,
		check: func(t *testing.T, out *TemplateInstance) {
			if out.Spec.Secret.Name != "last" || !apiequality.Semantic.DeepEqual(out.Spec.Template, Template{}) {
				t.Errorf("got %+v", out.Spec)
			}
		},
	}, {
		name: "Stencil's inline template, kept as written",
		in: templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{Template: &runtime.RawExtension{Raw: []byte(
			`{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template", "metadata": {"name": "s"},` +
				` "objects": [], "parameters": [{"name": "N", "type": "integer", "value": "3"}]}`)}}},
		annotation: true,
		check: func(t *testing.T, out *TemplateInstance) {
			if out.Spec.Template.Name != "s" || out.Spec.Template.Parameters[0].Value != "3" ||
				!strings.Contains(out.Spec.Template.Annotations[StencilFieldsAnnotation], `"type":"integer"`) {
				t.Errorf("got %+v", out.Spec.Template)
			}
		},
	}, {
		name: "status: Ready, Failed as InstantiateFailure, Progressing kept aside",
		in: templates.TemplateInstance{Status: templates.TemplateInstanceStatus{ObservedGeneration: 2,
			Conditions: []metav1.Condition{ready, progressing, failed},
			Objects:    []templates.TemplateInstanceObject{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "c", UID: "u", Ready: true}},
		}},
		annotation: true,
		check: func(t *testing.T, out *TemplateInstance) {
			want := []TemplateInstanceCondition{
				{Type: "Ready", Status: "True", Reason: "Ready", Message: "all ready", LastTransitionTime: ready.LastTransitionTime},
				{Type: "InstantiateFailure", Status: "False", Reason: "Applied", LastTransitionTime: failed.LastTransitionTime}}
			ref := ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "c", UID: "u"}
			if !apiequality.Semantic.DeepEqual(out.Status.Conditions, want) || len(out.Status.Objects) != 1 || out.Status.Objects[0].Ref != ref {
				t.Errorf("got %+v", out.Status)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var out TemplateInstance
			if err := InstanceFromInternal(&tc.in, &out); err != nil {
				t.Fatal(err)
			}
			if _, ok := out.Annotations[StencilFieldsAnnotation]; ok != tc.annotation {
				t.Errorf("annotation %v, want %v: %q", ok, tc.annotation, out.Annotations[StencilFieldsAnnotation])
			}
			tc.check(t, &out)
			// Through JSON, as a client reads and writes it back.
			data, err := json.Marshal(&out)
			if err != nil {
				t.Fatal(err)
			}
			var read TemplateInstance
			if err := json.Unmarshal(data, &read); err != nil {
				t.Fatal(err)
			}
			var back templates.TemplateInstance
			if err := decodeTemplateInstance(&read, &back); err != nil {
				t.Fatal(err)
			}
			if !apiequality.Semantic.DeepEqual(&back, &tc.in) {
				t.Errorf("round trip lost something:\n got %+v\nwant %+v", back, tc.in)
			}
		})
	}
}

// TestInstanceTemplateEdited checks that a changed spec.template wins over the text kept aside,
// and that a template written through OpenShift's form gets its apiVersion and kind.
func TestInstanceTemplateEdited(t *testing.T) {
	in := templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{Template: &runtime.RawExtension{Raw: []byte(` {"kind": "Template", "apiVersion": "v1", "objects": []}`)}}}
	var out TemplateInstance
	if err := InstanceFromInternal(&in, &out); err != nil {
		t.Fatal(err)
	}
	out.Spec.Template.Message = "changed"
	out.Spec.Template.TypeMeta = metav1.TypeMeta{}
	var back templates.TemplateInstance
	if err := InstanceToInternal(&out, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := string(back.Spec.Template.Raw), `{"kind":"Template","apiVersion":"template.openshift.io/v1","metadata":{},"message":"changed","objects":[]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestDecodeTemplateInstanceRefuses checks that decoding refuses what v1alpha1's decoding
// refuses, with field paths.
func TestDecodeTemplateInstanceRefuses(t *testing.T) {
	labels := map[string]string{}
	for i := 0; i <= templates.MaxEntries; i++ {
		labels[fmt.Sprint("k", i)] = ""
	}
	for _, tc := range []struct {
		name string
		in   TemplateInstance
		want string
	}{
		{"number", TemplateInstance{Spec: TemplateInstanceSpec{Template: Template{Objects: []runtime.RawExtension{{Raw: []byte(`{"replicas":1e400}`)}}}}},
			"spec.template.objects[0].replicas"},
		{"labels", TemplateInstance{Spec: TemplateInstanceSpec{Template: Template{Labels: labels}}}, "spec.template.labels"},
		{"objects", TemplateInstance{Spec: TemplateInstanceSpec{Template: Template{Objects: make([]runtime.RawExtension, templates.MaxObjects+1)}}}, "spec.template.objects"},
		{"annotation", TemplateInstance{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{StencilFieldsAnnotation: "{"}}},
			"metadata.annotations[templates.stencil.dev/stencil-fields]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out templates.TemplateInstance
			err := decodeTemplateInstance(&tc.in, &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

// benchmarkInstance is an instance of the shared mysql-persistent template as the controller
// leaves it: inline template, values Secret, Ready with four objects.
func benchmarkInstance(b *testing.B) *templates.TemplateInstance {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "process", "testdata", "mysql-persistent.json"))
	if err != nil {
		b.Fatal(err)
	}
	var typed Template
	if err := json.Unmarshal(raw, &typed); err != nil {
		b.Fatal(err)
	}
	if raw, err = json.Marshal(&typed); err != nil {
		b.Fatal(err)
	}
	ti := &templates.TemplateInstance{Spec: templates.TemplateInstanceSpec{Template: &runtime.RawExtension{Raw: raw},
		ParametersFrom: []templates.ParametersSource{{SecretRef: &templates.SecretReference{Name: "values"}}}}}
	ti.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "True", Reason: "Ready"}, {Type: "Progressing", Status: "False", Reason: "Applied"}}
	for _, kind := range []string{"Secret", "Service", "PersistentVolumeClaim", "Deployment"} {
		ti.Status.Objects = append(ti.Status.Objects, templates.TemplateInstanceObject{APIVersion: "v1", Kind: kind, Name: "mysql", Ready: true})
	}
	return ti
}

// BenchmarkInstanceFromInternal measures what a read through template.openshift.io costs
// (conversion and JSON) beside the same read through templates.stencil.dev, the baseline.
func BenchmarkInstanceFromInternal(b *testing.B) {
	ti := benchmarkInstance(b)
	b.Run("v1alpha1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out v1alpha1.TemplateInstance
			if err := v1alpha1.Convert_templates_TemplateInstance_To_v1alpha1_TemplateInstance(ti, &out, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("openshift", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out TemplateInstance
			if err := InstanceFromInternal(ti, &out); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
