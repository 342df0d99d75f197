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

package integration

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func rawObjects(objects ...string) []runtime.RawExtension {
	out := make([]runtime.RawExtension, len(objects))
	for i, o := range objects {
		out[i] = runtime.RawExtension{Raw: []byte(o)}
	}
	return out
}

// TestInvalidTemplates checks that every problem of a template is reported at once, as a 422
// whose causes name the fields.
func TestInvalidTemplates(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templatesv1.Template)
		causes []string // "field: reason" of every expected cause
	}{
		{
			name: "undeclared references",
			mutate: func(tpl *templatesv1.Template) {
				tpl.Message = "made ${NAME} for ${OWNER}"
				tpl.Objects = rawObjects(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"n":"${{COUNT}}","k":"$((KEY))","env":"$(NOT_A_PARAMETER)"}}`)
			},
			causes: []string{"message: FieldValueInvalid", "objects[0].data.k: FieldValueInvalid", "objects[0].data.n: FieldValueInvalid"},
		},
		{
			name:   "bad name",
			mutate: func(tpl *templatesv1.Template) { tpl.Name = "Not_A_DNS_Name" },
			causes: []string{"metadata.name: FieldValueInvalid"},
		},
		{
			name: "parameter names",
			mutate: func(tpl *templatesv1.Template) {
				tpl.Parameters = []templatesv1.Parameter{{Name: "1BAD"}, {Name: "OK"}, {Name: "OK"}, {Name: ""}, {Name: "has-dash"}}
				tpl.Objects, tpl.Message = nil, ""
			},
			causes: []string{
				"parameters[0].name: FieldValueInvalid",
				"parameters[2].name: FieldValueDuplicate",
				"parameters[3].name: FieldValueRequired",
				"parameters[4].name: FieldValueInvalid",
			},
		},
		{
			name: "generators",
			mutate: func(tpl *templatesv1.Template) {
				tpl.Parameters = []templatesv1.Parameter{
					{Name: "A", Generate: "bogus", From: "x"},
					{Name: "B", Generate: "expression"},
					{Name: "C", Generate: "expression", From: "[a-z]{300}"},
				}
				tpl.Objects, tpl.Message = nil, ""
			},
			causes: []string{
				"parameters[0].generate: FieldValueNotSupported",
				"parameters[1].from: FieldValueRequired",
				"parameters[2].from: FieldValueInvalid",
			},
		},
		{
			name: "typed defaults",
			mutate: func(tpl *templatesv1.Template) {
				tpl.Parameters = []templatesv1.Parameter{
					{Name: "N", Type: "int", Value: "three"},
					{Name: "B", Type: "bool", Value: "yes"},
					{Name: "S", Type: "base64", Value: "not base64!"},
					{Name: "T", Type: "float", Value: "1.5"},
					{Name: "OK", Type: "int", Value: "-99999999999999999999"},
				}
				tpl.Objects, tpl.Message = nil, ""
			},
			causes: []string{
				"parameters[0].value: FieldValueInvalid",
				"parameters[1].value: FieldValueInvalid",
				"parameters[2].value: FieldValueInvalid",
				"parameters[3].type: FieldValueNotSupported",
			},
		},
		{
			name: "objects without apiVersion or kind",
			mutate: func(tpl *templatesv1.Template) {
				tpl.Parameters, tpl.Message = nil, ""
				tpl.Objects = rawObjects(`{"kind":"ConfigMap"}`, `{"apiVersion":"v1"}`, `{"apiVersion":"v1","kind":"Secret"}`)
			},
			causes: []string{"objects[0].apiVersion: FieldValueRequired", "objects[1].kind: FieldValueRequired"},
		},
		{
			name: "transformer imports",
			mutate: func(tpl *templatesv1.Template) {
				tpl.TransformersFrom = []templatesv1.TransformerImport{{Name: "base", ImportMode: "sideways"}, {}}
				tpl.TransformerOrder = []templatesv1.TransformerReference{{}}
			},
			causes: []string{
				"transformersFrom[0].importMode: FieldValueNotSupported",
				"transformersFrom[1].name: FieldValueRequired",
				"transformerOrder[0].name: FieldValueRequired",
			},
		},
	}
	client := shared.client(t).TemplatesV1alpha1().Templates("invalid")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := newTemplate("invalid", nil)
			tc.mutate(tpl)
			_, err := client.Create(context.Background(), tpl, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want 422 Invalid, got %v", err)
			}
			if got := causesOf(err); strings.Join(got, "\n") != strings.Join(sorted(tc.causes), "\n") {
				t.Fatalf("causes:\n got  %q\n want %q", got, sorted(tc.causes))
			}
		})
	}
}

// TestInvalidTemplateUpdate checks that updates are validated as creates are.
func TestInvalidTemplateUpdate(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("invalid-update")
	tpl, err := client.Create(ctx, newTemplate("valid", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tpl.Parameters = append(tpl.Parameters, tpl.Parameters[0])
	_, err = client.Update(ctx, tpl, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || strings.Join(causesOf(err), ",") != "parameters[2].name: FieldValueDuplicate" {
		t.Fatalf("want 422 naming parameters[2].name, got %v", err)
	}
}

func causesOf(err error) []string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		out = append(out, c.Field+": "+string(c.Type))
	}
	return sorted(out)
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
