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

package template

import (
	"context"
	"errors"
	"slices"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/install"
)

func newTestStrategy() rest.RESTCreateUpdateStrategy {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	return NewStrategy(scheme, nil, nil)
}

func raw(objects ...string) []runtime.RawExtension {
	out := make([]runtime.RawExtension, len(objects))
	for i, o := range objects {
		out[i].Raw = []byte(o)
	}
	return out
}

// newTemplate is valid: each case breaks one thing.
func newTemplate() *templates.Template {
	return &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps", Labels: map[string]string{"tier": "front"}},
		Message:    "made ${NAME}",
		Parameters: []templates.Parameter{
			{Name: "NAME", Value: "web", Required: true},
			{Name: "REPLICAS", Type: templates.ParameterTypeInt, Value: "2"},
			{Name: "PASSWORD", Generate: templates.GeneratorExpression, From: "[a-z0-9]{12}"},
		},
		Objects: raw(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"replicas":"${{REPLICAS}}","env":"$(HOME)"}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"${NAME}-auth"},"stringData":{"password":"${PASSWORD}"}}`,
		),
		ObjectLabels:     map[string]string{"app": "${NAME}"},
		Transformers:     raw(`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"team":"a"}}`, `{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","prefix":"p-"}`),
		TransformerOrder: []templates.TransformerReference{{Name: "prefix-suffix-transformer"}, {Name: "label-transformer"}},
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

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.Template)
		want   []string // in the order of the 422
	}{
		{name: "valid", mutate: func(*templates.Template) {}},
		{name: "valid with an import", mutate: func(tpl *templates.Template) {
			tpl.TransformersFrom = []templates.TransformerImport{{Name: "base", ImportMode: templates.ImportModePrepend}}
			tpl.TransformerOrder = append(tpl.TransformerOrder, templates.TransformerReference{Name: "imported"})
		}},
		{
			name:   "metadata",
			mutate: func(tpl *templates.Template) { tpl.Name = "Web_Template" },
			want:   []string{"metadata.name: FieldValueInvalid"},
		},
		{
			name: "undeclared references",
			mutate: func(tpl *templates.Template) {
				tpl.Message = "made ${OWNER}"
				tpl.Objects = raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"n":"${{COUNT}}","k":"$((KEY))","env":"$(NOT_A_PARAMETER)"}}`)
			},
			want: []string{"message: FieldValueInvalid", "objects[0].data.k: FieldValueInvalid", "objects[0].data.n: FieldValueInvalid"},
		},
		{
			name: "undeclared reference in a transformer config",
			mutate: func(tpl *templates.Template) {
				tpl.Transformers = raw(`{"kind":"PrefixSuffixTransformer","prefix":"${NOPE}-"}`)
				tpl.TransformerOrder = nil
			},
			want: []string{"transformers[0].prefix: FieldValueInvalid"},
		},
		{
			name: "parameters",
			mutate: func(tpl *templates.Template) {
				tpl.Parameters = append(tpl.Parameters,
					templates.Parameter{Name: "NAME"},
					templates.Parameter{Name: "N", Type: templates.ParameterTypeInt, Value: "three"},
					templates.Parameter{Name: "G", Generate: "bogus"},
					templates.Parameter{Name: "1BAD"},
				)
			},
			want: []string{
				"parameters[3].name: FieldValueDuplicate",
				"parameters[4].value: FieldValueInvalid",
				"parameters[5].generate: FieldValueNotSupported",
				"parameters[6].name: FieldValueInvalid",
			},
		},
		{
			name:   "object without a kind",
			mutate: func(tpl *templates.Template) { tpl.Objects = raw(`{"apiVersion":"v1","metadata":{"name":"x"}}`) },
			want:   []string{"objects[0].kind: FieldValueRequired"},
		},
		{
			name:   "object label",
			mutate: func(tpl *templates.Template) { tpl.ObjectLabels = map[string]string{"app": "not a value"} },
			want:   []string{"objectLabels: FieldValueInvalid"},
		},
		{
			name: "transformer configs and order",
			mutate: func(tpl *templates.Template) {
				tpl.Transformers = raw(`{"kind":"NoSuchTransformer"}`, `{"kind":"PatchTransformer","target":{"name":"app-("},"patch":"spec: {}"}`)
				tpl.TransformerOrder = []templates.TransformerReference{{Name: "patch-transformer"}, {Name: "nope"}}
			},
			want: []string{
				"transformerOrder: FieldValueInvalid",
				"transformerOrder[1].name: FieldValueNotFound",
				"transformers[0].kind: FieldValueNotSupported",
				"transformers[1].target.name: FieldValueInvalid",
			},
		},
		{
			name: "template importing itself",
			mutate: func(tpl *templates.Template) {
				tpl.TransformersFrom = []templates.TransformerImport{{Name: "web", ImportMode: templates.ImportModeAppend}}
			},
			want: []string{"transformersFrom[0].name: FieldValueInvalid"},
		},
		{
			name: "import mode",
			mutate: func(tpl *templates.Template) {
				tpl.TransformersFrom = []templates.TransformerImport{{Name: "base", ImportMode: "sideways"}}
			},
			want: []string{"transformersFrom[0].importMode: FieldValueNotSupported"},
		},
		{
			// One 422 names every problem, the API's and the engine's, ordered by field path
			// with indexes compared as numbers.
			name: "every problem at once",
			mutate: func(tpl *templates.Template) {
				tpl.Name = "Bad_Name"
				tpl.Message = "${OWNER}"
				for len(tpl.Parameters) < 11 {
					tpl.Parameters = append(tpl.Parameters, templates.Parameter{Name: "P" + string(rune('A'+len(tpl.Parameters)))})
				}
				tpl.Parameters[10].Type = "float"
				tpl.Parameters[2].Name = "has-dash"
				tpl.Transformers = raw(`{"kind":"NoSuchTransformer"}`)
				tpl.TransformerOrder = []templates.TransformerReference{{}}
				tpl.TransformersFrom = []templates.TransformerImport{{Name: "base", ImportMode: "x"}}
			},
			want: []string{
				"message: FieldValueInvalid",
				"metadata.name: FieldValueInvalid",
				"objects[1].stringData.password: FieldValueInvalid",
				"parameters[2].name: FieldValueInvalid",
				"parameters[10].type: FieldValueNotSupported",
				"transformerOrder[0].name: FieldValueRequired",
				"transformers[0].kind: FieldValueNotSupported",
				"transformersFrom[0].importMode: FieldValueNotSupported",
			},
		},
		{
			// An OpenShift Template keeps undeclared references verbatim, as OpenShift does.
			name: "OpenShift dialect",
			mutate: func(tpl *templates.Template) {
				tpl.OpenShift = true
				tpl.Message = "made ${OWNER}"
			},
		},
	}
	s := newTestStrategy()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := newTemplate()
			tc.mutate(tpl)
			if got := fieldsOf(s.Validate(context.Background(), tpl)); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	s := newTestStrategy()
	old := newTemplate()
	old.ResourceVersion = "4"

	tpl := old.DeepCopy()
	tpl.Parameters = append(tpl.Parameters, templates.Parameter{Name: "MORE", Value: "x"})
	if errs := s.ValidateUpdate(context.Background(), tpl, old); len(errs) > 0 {
		t.Errorf("valid update refused: %v", errs)
	}

	tpl = old.DeepCopy()
	tpl.Namespace = "elsewhere"
	tpl.Parameters = append(tpl.Parameters, tpl.Parameters[0])
	tpl.TransformerOrder = tpl.TransformerOrder[:1]
	want := []string{"metadata.namespace: FieldValueInvalid", "parameters[3].name: FieldValueDuplicate", "transformerOrder: FieldValueInvalid"}
	if got := fieldsOf(s.ValidateUpdate(context.Background(), tpl, old)); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestBeforeCreate runs the strategy as the generic store does: in the request's namespace,
// every problem in one 422 of kind Template.
func TestBeforeCreate(t *testing.T) {
	s := newTestStrategy()
	ctx := genericapirequest.WithNamespace(context.Background(), "apps")

	tpl := newTemplate()
	tpl.Namespace = ""
	rest.FillObjectMetaSystemFields(tpl)
	if err := rest.BeforeCreate(s, ctx, tpl); err != nil {
		t.Fatalf("valid Template refused: %v", err)
	}
	if tpl.Namespace != "apps" {
		t.Errorf("namespace %q, want the request's", tpl.Namespace)
	}

	bad := newTemplate()
	bad.Parameters[0].Type = "float"
	bad.Message = "${OWNER}"
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
	if want := []string{"message", "parameters[0].type"}; !slices.Equal(got, want) {
		t.Errorf("causes %q, want %q", got, want)
	}
	if status.Status().Details.Kind != "Template" {
		t.Errorf("kind %q, want Template", status.Status().Details.Kind)
	}
}

// TestPrepareKeepsTheTemplate checks that a Template is stored as sent: it has no status, and
// the server sets only its revision (and its author, from the request's user, here none).
func TestPrepareKeepsTheTemplate(t *testing.T) {
	s := newTestStrategy()
	tpl := newTemplate()
	tpl.Generation = 7
	want := tpl.DeepCopy()
	s.PrepareForCreate(context.Background(), tpl)
	if tpl.Revision == nil || tpl.Revision.Number != 1 {
		t.Errorf("PrepareForCreate set revision %+v, want 1", tpl.Revision)
	}
	tpl.Revision = nil
	if !apiequality.Semantic.DeepEqual(tpl, want) {
		t.Errorf("PrepareForCreate changed the template:\n%+v", tpl)
	}
	old := newTemplate()
	tpl.Message = "changed"
	want = tpl.DeepCopy()
	s.PrepareForUpdate(context.Background(), tpl, old)
	tpl.Revision = nil
	if !apiequality.Semantic.DeepEqual(tpl, want) || !apiequality.Semantic.DeepEqual(old, newTemplate()) {
		t.Errorf("PrepareForUpdate changed a template:\n%+v\n%+v", tpl, old)
	}
}

func TestGetAttrs(t *testing.T) {
	tpl := newTemplate()
	ls, fs, err := GetAttrs(tpl)
	if err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(ls, labels.Set{"tier": "front"}) {
		t.Errorf("labels = %v", ls)
	}
	if want := (fields.Set{"metadata.name": "web", "metadata.namespace": "apps"}); !apiequality.Semantic.DeepEqual(fs, want) {
		t.Errorf("fields = %v, want %v", fs, want)
	}
	if _, _, err := GetAttrs(&templates.CustomTransform{}); err == nil {
		t.Error("GetAttrs accepted a CustomTransform")
	}
	cases := []struct {
		label, field string
		want         bool
	}{
		{"", "", true},
		{"tier=front", "metadata.name=web,metadata.namespace=apps", true},
		{"tier=back", "", false},
		{"", "metadata.namespace=other", false},
	}
	for _, tc := range cases {
		sel, err := labels.Parse(tc.label)
		if err != nil {
			t.Fatal(err)
		}
		predicate := Match(sel, fields.ParseSelectorOrDie(tc.field))
		if match, err := predicate.Matches(tpl); err != nil || match != tc.want {
			t.Errorf("Match(%q, %q) = %v, %v; want %v", tc.label, tc.field, match, err, tc.want)
		}
	}
}

func TestStrategyBehaviour(t *testing.T) {
	s := newTestStrategy()
	ctx := context.Background()
	tpl := newTemplate()
	if !s.NamespaceScoped() {
		t.Error("Templates are namespaced")
	}
	if s.AllowCreateOnUpdate(ctx) {
		t.Error("AllowCreateOnUpdate: a Template is created with POST")
	}
	if !s.AllowUnconditionalUpdate(ctx) {
		t.Error("AllowUnconditionalUpdate: kubectl replace without a resourceVersion must work")
	}
	if w := s.WarningsOnCreate(ctx, tpl); w != nil {
		t.Errorf("WarningsOnCreate = %q", w)
	}
	if w := s.WarningsOnUpdate(ctx, tpl, tpl.DeepCopy()); w != nil {
		t.Errorf("WarningsOnUpdate = %q", w)
	}
	before := tpl.DeepCopy()
	s.Canonicalize(tpl)
	if !apiequality.Semantic.DeepEqual(tpl, before) {
		t.Error("Canonicalize changed the template")
	}
}
