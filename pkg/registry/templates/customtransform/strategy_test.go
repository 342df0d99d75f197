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

package customtransform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
)

func newTestStrategy() strategy {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	return NewStrategy(scheme)
}

func newCustomTransform() *templates.CustomTransform {
	return &templates.CustomTransform{
		ObjectMeta: metav1.ObjectMeta{Name: "strip", Labels: map[string]string{"team": "a"}},
		Spec:       templates.CustomTransformSpec{Resource: "services", Remove: []string{"$.spec.clusterIP", `$.metadata.annotations["internal"]`}},
	}
}

// fieldsOf lists errs as "field: type" in their order, which the 422 keeps.
func fieldsOf(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type))
	}
	return out
}

// checkAccepted checks the server's status of ct: Accepted, True, for its generation.
func checkAccepted(t *testing.T, ct *templates.CustomTransform) {
	t.Helper()
	if ct.Status.ObservedGeneration != ct.Generation {
		t.Errorf("status.observedGeneration = %d, want the generation %d", ct.Status.ObservedGeneration, ct.Generation)
	}
	if len(ct.Status.Conditions) != 1 {
		t.Fatalf("want one condition, got %+v", ct.Status.Conditions)
	}
	c := ct.Status.Conditions[0]
	if c.Type != "Accepted" || c.Status != metav1.ConditionTrue || c.Reason != "Valid" || c.ObservedGeneration != ct.Generation {
		t.Errorf("condition = %+v, want Accepted True Valid at generation %d", c, ct.Generation)
	}
	if c.LastTransitionTime.IsZero() {
		t.Error("lastTransitionTime is not set")
	}
	if !strings.Contains(c.Message, "2 paths") {
		t.Errorf("message %q does not say how many paths are removed", c.Message)
	}
}

func TestPrepareForCreate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.CustomTransform)
	}{
		{name: "no status", mutate: func(*templates.CustomTransform) {}},
		{name: "generation from the client", mutate: func(ct *templates.CustomTransform) { ct.Generation = 5 }},
		{name: "status from the client", mutate: func(ct *templates.CustomTransform) {
			ct.Status = templates.CustomTransformStatus{
				ObservedGeneration: 9,
				Conditions: []metav1.Condition{
					{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "Mine", ObservedGeneration: 9},
					{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Mine"},
				},
			}
		}},
	}
	s := newTestStrategy()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := newCustomTransform()
			tc.mutate(ct)
			s.PrepareForCreate(context.Background(), ct)
			if ct.Generation != 1 {
				t.Errorf("generation = %d, want 1", ct.Generation)
			}
			checkAccepted(t, ct)
		})
	}
}

func TestPrepareForUpdate(t *testing.T) {
	then := metav1.NewTime(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC))
	stored := func() *templates.CustomTransform {
		ct := newCustomTransform()
		ct.Generation = 3
		ct.Status = templates.CustomTransformStatus{ObservedGeneration: 3, Conditions: []metav1.Condition{{
			Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Valid", ObservedGeneration: 3, LastTransitionTime: then,
			Message: "the spec is valid: 2 paths are removed from the objects this binds to",
		}}}
		return ct
	}
	cases := []struct {
		name           string
		old            func(*templates.CustomTransform)
		mutate         func(*templates.CustomTransform)
		wantGeneration int64
		// wantNewTransition is true when the condition's status changes, so that its
		// lastTransitionTime must move; otherwise it must stay.
		wantNewTransition bool
	}{
		{name: "nothing changed", mutate: func(*templates.CustomTransform) {}, wantGeneration: 3},
		{name: "metadata only", mutate: func(ct *templates.CustomTransform) { ct.Labels["team"] = "b" }, wantGeneration: 3},
		{name: "spec changed", mutate: func(ct *templates.CustomTransform) { ct.Spec.Resource = "configmaps" }, wantGeneration: 4},
		{name: "generation from the client", mutate: func(ct *templates.CustomTransform) { ct.Generation = 100 }, wantGeneration: 3},
		{name: "status from the client", mutate: func(ct *templates.CustomTransform) {
			ct.Status = templates.CustomTransformStatus{ObservedGeneration: 42, Conditions: []metav1.Condition{
				{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "Mine", LastTransitionTime: metav1.Now()},
			}}
		}, wantGeneration: 3},
		{name: "status cleared by the client", mutate: func(ct *templates.CustomTransform) { ct.Status = templates.CustomTransformStatus{} }, wantGeneration: 3},
		{
			name: "reason of an older server",
			old: func(ct *templates.CustomTransform) {
				ct.Status.Conditions[0].Reason = "PathsValid"
			},
			mutate:         func(*templates.CustomTransform) {},
			wantGeneration: 3,
		},
		{
			name: "stored status not accepted",
			old: func(ct *templates.CustomTransform) {
				ct.Status.Conditions[0].Status = metav1.ConditionFalse
				ct.Status.Conditions[0].Reason = "Invalid"
			},
			mutate:            func(*templates.CustomTransform) {},
			wantGeneration:    3,
			wantNewTransition: true,
		},
		{
			name: "stored status empty",
			old: func(ct *templates.CustomTransform) {
				ct.Status = templates.CustomTransformStatus{}
			},
			mutate:            func(ct *templates.CustomTransform) { ct.Spec.Remove[0] = "$.spec.type" },
			wantGeneration:    4,
			wantNewTransition: true,
		},
	}
	s := newTestStrategy()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := stored()
			if tc.old != nil {
				tc.old(old)
			}
			ct := old.DeepCopy()
			tc.mutate(ct)
			oldCopy := old.DeepCopy()
			s.PrepareForUpdate(context.Background(), ct, old)
			if ct.Generation != tc.wantGeneration {
				t.Errorf("generation = %d, want %d", ct.Generation, tc.wantGeneration)
			}
			checkAccepted(t, ct)
			moved := !ct.Status.Conditions[0].LastTransitionTime.Equal(&then)
			if moved != tc.wantNewTransition {
				t.Errorf("lastTransitionTime moved: %v, want %v (%v)", moved, tc.wantNewTransition, ct.Status.Conditions[0].LastTransitionTime)
			}
			if !apiequality.Semantic.DeepEqual(old, oldCopy) {
				t.Errorf("the stored object was edited:\n%+v\nwas\n%+v", old, oldCopy)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.CustomTransform)
		want   []string // in the order of the 422
	}{
		{name: "valid", mutate: func(*templates.CustomTransform) {}},
		{name: "every path syntax", mutate: func(ct *templates.CustomTransform) {
			ct.Spec.Remove = []string{`$.a.b`, `$["x.y"]`, `$.items[*].c`, `$.items[3]`, `$.metadata.annotations["a\"b"]`}
		}},
		{
			name: "bad paths",
			mutate: func(ct *templates.CustomTransform) {
				ct.Spec.Remove = []string{"$.ok", "$", `$.spec["unterminated`, "spec.noDollar"}
			},
			want: []string{"spec.remove[1]: FieldValueInvalid", "spec.remove[2]: FieldValueInvalid", "spec.remove[3]: FieldValueInvalid"},
		},
		{
			name: "API and path problems in one ordered list",
			mutate: func(ct *templates.CustomTransform) {
				ct.Name = ""
				ct.Spec.Kind = "Service"
				ct.Spec.Remove = make([]string, 11)
				for i := range ct.Spec.Remove {
					ct.Spec.Remove[i] = fmt.Sprintf("$.ok%d", i)
				}
				ct.Spec.Remove[10], ct.Spec.Remove[2] = "bad", "$."
			},
			want: []string{
				"metadata.name: FieldValueRequired",
				"spec.kind: FieldValueForbidden",
				"spec.remove[2]: FieldValueInvalid",
				"spec.remove[10]: FieldValueInvalid",
			},
		},
		{
			// Beyond the limits the paths are not parsed: one cause says what to fix.
			name: "10,000 broken paths",
			mutate: func(ct *templates.CustomTransform) {
				ct.Spec.Remove = make([]string, 10000)
				for i := range ct.Spec.Remove {
					ct.Spec.Remove[i] = fmt.Sprintf("broken%d", i)
				}
			},
			want: []string{"spec.remove: FieldValueTooMany"},
		},
		{
			name:   "a path of 1 MB",
			mutate: func(ct *templates.CustomTransform) { ct.Spec.Remove = []string{"$." + strings.Repeat("a", 1<<20)} },
			want:   []string{"spec.remove[0]: FieldValueTooLong"},
		},
	}
	s := newTestStrategy()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := newCustomTransform()
			tc.mutate(ct)
			if got := fieldsOf(s.Validate(context.Background(), ct)); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	s := newTestStrategy()
	old := newCustomTransform()
	old.ResourceVersion = "5"

	ct := old.DeepCopy()
	ct.Spec.Remove = append(ct.Spec.Remove, "$.spec.ports[*].nodePort")
	if errs := s.ValidateUpdate(context.Background(), ct, old); len(errs) > 0 {
		t.Errorf("valid update refused: %v", errs)
	}

	ct = old.DeepCopy()
	ct.Name = "renamed"
	ct.Spec.Remove = []string{"$..x"}
	want := []string{"metadata.name: FieldValueInvalid", "spec.remove[0]: FieldValueInvalid"}
	if got := fieldsOf(s.ValidateUpdate(context.Background(), ct, old)); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestBeforeCreate runs the strategy as the generic store does: cluster-scoped, every problem
// in one 422.
func TestBeforeCreate(t *testing.T) {
	s := newTestStrategy()
	ctx := genericapirequest.WithNamespace(context.Background(), metav1.NamespaceNone)

	ct := newCustomTransform()
	rest.FillObjectMetaSystemFields(ct)
	if err := rest.BeforeCreate(s, ctx, ct); err != nil {
		t.Fatalf("valid CustomTransform refused: %v", err)
	}
	checkAccepted(t, ct)

	bad := newCustomTransform()
	bad.Spec.APIGroup = "Not_A_Group"
	bad.Spec.Remove = []string{"nope", "$.ok"}
	rest.FillObjectMetaSystemFields(bad)
	err := rest.BeforeCreate(s, ctx, bad)
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) {
		t.Fatalf("want 422, got %v", err)
	}
	var got []string
	for _, c := range status.Status().Details.Causes {
		got = append(got, c.Field)
	}
	if want := []string{"spec.apiGroup", "spec.remove[0]"}; !slices.Equal(got, want) {
		t.Errorf("causes %q, want %q", got, want)
	}
	if status.Status().Details.Kind != "CustomTransform" {
		t.Errorf("kind %q, want CustomTransform", status.Status().Details.Kind)
	}
}

func TestGetAttrs(t *testing.T) {
	ct := newCustomTransform()
	ls, fs, err := GetAttrs(ct)
	if err != nil {
		t.Fatal(err)
	}
	if !labels.Equals(ls, labels.Set{"team": "a"}) {
		t.Errorf("labels = %v", ls)
	}
	if !apiequality.Semantic.DeepEqual(fs, fields.Set{"metadata.name": "strip"}) {
		t.Errorf("fields = %v, want metadata.name only: CustomTransforms have no namespace", fs)
	}
	if _, _, err := GetAttrs(&templates.Template{}); err == nil {
		t.Error("GetAttrs accepted a Template")
	}

	cases := []struct {
		label, field string
		want         bool
	}{
		{"", "", true},
		{"team=a", "metadata.name=strip", true},
		{"team=b", "", false},
		{"", "metadata.name=other", false},
	}
	for _, tc := range cases {
		predicate := Match(labels.SelectorFromSet(mustLabels(t, tc.label)), fields.ParseSelectorOrDie(tc.field))
		match, err := predicate.Matches(ct)
		if err != nil || match != tc.want {
			t.Errorf("Match(%q, %q) = %v, %v; want %v", tc.label, tc.field, match, err, tc.want)
		}
	}
}

func mustLabels(t *testing.T, s string) labels.Set {
	t.Helper()
	set, err := labels.ConvertSelectorToLabelsMap(s)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestStrategyBehaviour(t *testing.T) {
	s := newTestStrategy()
	ctx := context.Background()
	ct := newCustomTransform()
	if s.NamespaceScoped() {
		t.Error("CustomTransforms are cluster-scoped")
	}
	if s.AllowCreateOnUpdate(ctx) {
		t.Error("AllowCreateOnUpdate: a CustomTransform is created with POST")
	}
	if !s.AllowUnconditionalUpdate(ctx) {
		t.Error("AllowUnconditionalUpdate: kubectl replace without a resourceVersion must work")
	}
	if w := s.WarningsOnCreate(ctx, ct); w != nil {
		t.Errorf("WarningsOnCreate = %q", w)
	}
	if w := s.WarningsOnUpdate(ctx, ct, ct.DeepCopy()); w != nil {
		t.Errorf("WarningsOnUpdate = %q", w)
	}
	before := ct.DeepCopy()
	s.Canonicalize(ct)
	if !apiequality.Semantic.DeepEqual(ct, before) {
		t.Error("Canonicalize changed the object")
	}
	reset := s.GetResetFields()["templates.stencil.dev/v1alpha1"]
	if reset == nil || !reset.Has(fieldpath.MakePathOrDie("status")) {
		t.Errorf("status is not reset for apply: %v", reset)
	}
}
