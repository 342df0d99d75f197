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
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestParameterRulesThroughTheServer checks CEL rules through the real server: a Template
// with a bad default, a bad regex and a rule that does not compile is refused with the three
// paths; processing with a value out of range, a wrong enum word and a failed rule answers one
// 422 naming all three.
func TestParameterRulesThroughTheServer(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("rules")

	broken := newTemplate("broken", nil)
	broken.Parameters = append(broken.Parameters,
		templatesv1.Parameter{Name: "REPLICAS", Type: "int", Value: "20", Maximum: ptrTo(templatesv1.NumberBound("10"))},
		templatesv1.Parameter{Name: "HOST", Pattern: "[a-z"})
	broken.Rules = []templatesv1.ParameterRule{{Rule: "params.REPLICAS >"}}
	_, err := client.Create(ctx, broken, metav1.CreateOptions{})
	want := []string{"parameters[2].value: FieldValueInvalid", "parameters[3].pattern: FieldValueInvalid", "rules[0].rule: FieldValueInvalid"}
	if !apierrors.IsInvalid(err) || strings.Join(causesOf(err), ",") != strings.Join(want, ",") {
		t.Fatalf("want one 422 naming %q, got %v (causes %q)", want, err, causesOf(err))
	}

	ruled := newTemplate("ruled", nil)
	ruled.Message = ""
	ruled.Parameters = []templatesv1.Parameter{
		{Name: "MIN", Type: "int", Value: "1", Minimum: ptrTo(templatesv1.NumberBound("1")), Maximum: ptrTo(templatesv1.NumberBound("10"))},
		{Name: "MAX", Type: "int", Value: "3", Maximum: ptrTo(templatesv1.NumberBound("10"))},
		{Name: "TIER", Value: "web", Enum: []string{"web", "db"}},
	}
	ruled.Rules = []templatesv1.ParameterRule{{Rule: "params.MIN <= params.MAX", Message: "MAX must be at least MIN", FieldPath: "MAX"}}
	ruled.Objects = rawObjects(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"${MIN}${MAX}${TIER}"}}`)
	created, err := client.Create(ctx, ruled, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Rules) != 1 || created.Rules[0].FieldPath != "MAX" {
		t.Fatalf("the stored rules: %+v", created.Rules)
	}

	path := "/apis/templates.stencil.dev/v1alpha1/namespaces/rules/templates/ruled/processed"
	status, raw, _ := rawPost(t, path, []byte(`{"parameters":{"MIN":"11","TIER":"gold","MAX":"2"}}`))
	var st metav1.Status
	if status != 422 || json.Unmarshal(raw, &st) != nil || st.Details == nil {
		t.Fatalf("want a 422 Status, got %d: %.400s", status, raw)
	}
	var got []string
	for _, c := range st.Details.Causes {
		got = append(got, c.Field+": "+c.Message)
	}
	wantCauses := []string{
		`parameters[0]: Invalid value: "11": parameter MIN must be at most 10`,
		`parameters[1]: Invalid value: "2": MAX must be at least MIN`,
		`parameters[2]: Invalid value: "gold": parameter TIER must be one of ["web" "db"]`,
	}
	if strings.Join(got, "\n") != strings.Join(wantCauses, "\n") {
		t.Fatalf("causes:\n got  %q\n want %q", got, wantCauses)
	}
	if status, raw, _ := rawPost(t, path, []byte(`{"parameters":{"MIN":"2","MAX":"2"}}`)); status != 201 {
		t.Fatalf("values keeping the rule: %d %.400s", status, raw)
	}
}

// TestConditionalObjectsThroughTheServer checks include-when and for-each through the real
// server: a stored template whose Secret is conditional and whose ConfigMap repeats per zone.
func TestConditionalObjectsThroughTheServer(t *testing.T) {
	ctx := context.Background()
	tpl := newTemplate("zones", nil)
	tpl.Message = ""
	tpl.Parameters = []templatesv1.Parameter{
		{Name: "TLS", Type: "bool", Value: "false"},
		{Name: "ZONES", Type: "json", Value: `["eu-1","eu-2","us-1"]`, Items: &templatesv1.JSONValueSchema{Type: "string", MaxLength: ptrTo(templatesv1.NewLength(16))}, MaxItems: ptrTo(templatesv1.NewLength(8))},
	}
	tpl.ObjectLabels = map[string]string{"app": "zones"}
	tpl.Objects = rawObjects(
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"tls","annotations":{"templates.stencil.dev/include-when":"params.TLS"}}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"zone-${ITEM}","annotations":{"templates.stencil.dev/for-each":"params.ZONES"}},"data":{"zone":"${ITEM}"}}`)
	if _, err := shared.client(t).TemplatesV1alpha1().Templates("rules").Create(ctx, tpl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	status, raw, _ := rawPost(t, "/apis/templates.stencil.dev/v1alpha1/namespaces/rules/templates/zones/processed", []byte(`{"parameters":{}}`))
	var list struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name        string            `json:"name"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if status != 201 || json.Unmarshal(raw, &list) != nil {
		t.Fatalf("%d %.400s", status, raw)
	}
	var names []string
	for _, item := range list.Items {
		if item.Metadata.Labels["app"] != "zones" || item.Metadata.Annotations != nil {
			t.Errorf("labels or annotations of %s: %.400s", item.Metadata.Name, raw)
		}
		names = append(names, item.Kind+"/"+item.Metadata.Name)
	}
	if strings.Join(names, ",") != "ConfigMap/zone-eu-1,ConfigMap/zone-eu-2,ConfigMap/zone-us-1" {
		t.Errorf("objects %q", names)
	}
}
