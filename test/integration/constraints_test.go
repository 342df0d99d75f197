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

func ptrTo[T any](v T) *T { return &v }

// TestParameterConstraints checks, through the real server, that a Template's broken
// constraints are refused at create with every path, that the stored constraints come back as
// written, and that processing reports every value breaking them in one 422.
func TestParameterConstraints(t *testing.T) {
	ctx := context.Background()
	client := shared.client(t).TemplatesV1alpha1().Templates("constraints")

	broken := newTemplate("broken", nil)
	broken.Parameters = append(broken.Parameters,
		templatesv1.Parameter{Name: "REPLICAS", Type: "int", Value: "20", Maximum: ptrTo(templatesv1.NumberBound("10"))},
		templatesv1.Parameter{Name: "HOST", Pattern: "[a-z"},
		templatesv1.Parameter{Name: "RATIO", Type: "number", Minimum: ptrTo(templatesv1.NumberBound("1")), Maximum: ptrTo(templatesv1.NumberBound("0.5"))})
	_, err := client.Create(ctx, broken, metav1.CreateOptions{})
	want := []string{"parameters[2].value: FieldValueInvalid", "parameters[3].pattern: FieldValueInvalid", "parameters[4].minimum: FieldValueInvalid"}
	if !apierrors.IsInvalid(err) || strings.Join(causesOf(err), ",") != strings.Join(want, ",") {
		t.Fatalf("want one 422 naming %q, got %v (causes %q)", want, err, causesOf(err))
	}

	typed := newTemplate("typed", nil)
	typed.Parameters = []templatesv1.Parameter{
		{Name: "REPLICAS", Type: "int", Value: "1", Minimum: ptrTo(templatesv1.StringBound("1")), Maximum: ptrTo(templatesv1.StringBound("10"))},
		{Name: "TIER", Value: "web", Enum: []string{"web", "db", "cache"}},
		{Name: "NAME", Value: "app", Pattern: "^[a-z-]+$", MaxLength: ptrTo(templatesv1.NewLength(8)), Multiline: true},
		{Name: "PASSWORD", Generate: "expression", From: "[a-z]{8}", MinLength: ptrTo(templatesv1.NewLength(8)), Secret: true},
	}
	typed.Objects = rawObjects(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"t":"${TIER}","p":"${PASSWORD}","r":"${REPLICAS}"}}`)
	created, err := client.Create(ctx, typed, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(created.Parameters); !strings.Contains(string(got), `"enum":["web","db","cache"]`) ||
		!strings.Contains(string(got), `"minimum":"1","maximum":"10"`) || !strings.Contains(string(got), `"secret":true`) {
		t.Fatalf("the stored constraints differ from those written: %s", got)
	}

	path := "/apis/templates.stencil.dev/v1alpha1/namespaces/constraints/templates/typed/processed"
	status, raw, _ := rawPost(t, path, []byte(`{"parameters":{"REPLICAS":"11","TIER":"gold","NAME":"much-too-long"}}`))
	var st metav1.Status
	if status != 422 || json.Unmarshal(raw, &st) != nil || st.Details == nil {
		t.Fatalf("want a 422 Status, got %d: %.400s", status, raw)
	}
	var got []string
	for _, c := range st.Details.Causes {
		got = append(got, c.Field+": "+c.Message)
	}
	wantCauses := []string{
		"parameters[0]: Invalid value: \"11\": parameter REPLICAS must be at most 10",
		"parameters[1]: Invalid value: \"gold\": parameter TIER must be one of [\"web\" \"db\" \"cache\"]",
		"parameters[2]: Invalid value: \"much-too-long\": parameter NAME must be at most 8 characters long",
	}
	if strings.Join(got, "\n") != strings.Join(wantCauses, "\n") {
		t.Fatalf("causes:\n got  %q\n want %q", got, wantCauses)
	}

	status, raw, _ = rawPost(t, path, []byte(`{"parameters":{"REPLICAS":"10","TIER":"db"}}`))
	if status != 201 || !strings.Contains(string(raw), `"t":"db"`) {
		t.Fatalf("values within the constraints: %d %.400s", status, raw)
	}
}
