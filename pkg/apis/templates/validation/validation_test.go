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

package validation

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// causes lists errs as "field: type", sorted, the way the tests state what they expect.
func causes(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type))
	}
	slices.Sort(out)
	return out
}

func checkCauses(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if got := causes(errs); !slices.Equal(got, want) {
		t.Errorf("causes:\n got  %q\n want %q\n errors: %v", got, want, errs)
	}
}

func validTemplate() *templates.Template {
	return &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps"},
		TransformersFrom: []templates.TransformerImport{
			{Name: "base", ImportMode: templates.ImportModePrepend},
			{Name: "team.defaults", ImportMode: templates.ImportModeAppend},
		},
	}
}

func TestValidateTemplate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.Template)
		want   []string
	}{
		{name: "valid", mutate: func(*templates.Template) {}},
		{name: "no imports", mutate: func(tpl *templates.Template) { tpl.TransformersFrom = nil }},
		{name: "no name", mutate: func(tpl *templates.Template) { tpl.Name = "" }, want: []string{"metadata.name: FieldValueRequired"}},
		{name: "name not a DNS subdomain", mutate: func(tpl *templates.Template) { tpl.Name = "Not_A_Name" }, want: []string{"metadata.name: FieldValueInvalid"}},
		{name: "no namespace", mutate: func(tpl *templates.Template) { tpl.Namespace = "" }, want: []string{"metadata.namespace: FieldValueRequired"}},
		{name: "bad label", mutate: func(tpl *templates.Template) { tpl.Labels = map[string]string{"a b": "c"} }, want: []string{"metadata.labels: FieldValueInvalid"}},
		{
			name:   "import without a name",
			mutate: func(tpl *templates.Template) { tpl.TransformersFrom[1].Name = "" },
			want:   []string{"transformersFrom[1].name: FieldValueRequired"},
		},
		{
			name:   "import named twice",
			mutate: func(tpl *templates.Template) { tpl.TransformersFrom[1].Name = "base" },
			want:   []string{"transformersFrom[1].name: FieldValueDuplicate"},
		},
		{
			name:   "import name not a DNS subdomain",
			mutate: func(tpl *templates.Template) { tpl.TransformersFrom[0].Name = "Base_Template" },
			want:   []string{"transformersFrom[0].name: FieldValueInvalid"},
		},
		{
			name:   "unknown import mode",
			mutate: func(tpl *templates.Template) { tpl.TransformersFrom[0].ImportMode = "sideways" },
			want:   []string{"transformersFrom[0].importMode: FieldValueNotSupported"},
		},
		{
			// Decoding defaults the mode, so an empty one means defaulting did not run.
			name:   "empty import mode",
			mutate: func(tpl *templates.Template) { tpl.TransformersFrom[1].ImportMode = "" },
			want:   []string{"transformersFrom[1].importMode: FieldValueNotSupported"},
		},
		{
			name: "every problem at once",
			mutate: func(tpl *templates.Template) {
				tpl.Name, tpl.Namespace = "Bad_Name", ""
				tpl.TransformersFrom = []templates.TransformerImport{{Name: "", ImportMode: "x"}, {Name: "b"}, {Name: "b", ImportMode: templates.ImportModeAppend}}
			},
			want: []string{
				"metadata.name: FieldValueInvalid",
				"metadata.namespace: FieldValueRequired",
				"transformersFrom[0].importMode: FieldValueNotSupported",
				"transformersFrom[0].name: FieldValueRequired",
				"transformersFrom[1].importMode: FieldValueNotSupported",
				"transformersFrom[2].name: FieldValueDuplicate",
			},
		},
		{
			// Parameters, objects and transformers are judged by the engine, not here.
			name: "engine checks are not made here",
			mutate: func(tpl *templates.Template) {
				tpl.Parameters = []templates.Parameter{{Name: "1BAD", Type: "float"}}
				tpl.Message = "${UNDECLARED}"
				tpl.TransformerOrder = []templates.TransformerReference{{}}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := validTemplate()
			tc.mutate(tpl)
			checkCauses(t, ValidateTemplate(tpl), tc.want)
		})
	}
}

func TestValidateTemplateUpdate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*templates.Template)
		want   []string
	}{
		{name: "unchanged", mutate: func(*templates.Template) {}},
		{name: "new import", mutate: func(tpl *templates.Template) {
			tpl.TransformersFrom = append(tpl.TransformersFrom, templates.TransformerImport{Name: "more", ImportMode: templates.ImportModeAppend})
		}},
		{name: "renamed", mutate: func(tpl *templates.Template) { tpl.Name = "other" }, want: []string{"metadata.name: FieldValueInvalid"}},
		{name: "moved", mutate: func(tpl *templates.Template) { tpl.Namespace = "other" }, want: []string{"metadata.namespace: FieldValueInvalid"}},
		{
			name:   "imports checked as on create",
			mutate: func(tpl *templates.Template) { tpl.TransformersFrom[0].ImportMode = "sideways" },
			want:   []string{"transformersFrom[0].importMode: FieldValueNotSupported"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := validTemplate()
			old.ResourceVersion = "7"
			tpl := old.DeepCopy()
			tc.mutate(tpl)
			checkCauses(t, ValidateTemplateUpdate(tpl, old), tc.want)
		})
	}
}

func TestValidateTemplateParameters(t *testing.T) {
	destinations := func(n int) []templates.Destination {
		out := make([]templates.Destination, n)
		for i := range out {
			out[i].Name = fmt.Sprintf("cluster-%d", i)
		}
		return out
	}
	cases := []struct {
		name   string
		params templates.TemplateParameters
		want   []string
	}{
		{name: "empty"},
		{name: "named as the template", params: templates.TemplateParameters{ObjectMeta: metav1.ObjectMeta{Name: "web"}}},
		{
			name:   "named as another template",
			params: templates.TemplateParameters{ObjectMeta: metav1.ObjectMeta{Name: "db"}},
			want:   []string{"metadata.name: FieldValueInvalid"},
		},
		{name: "labels", params: templates.TemplateParameters{Labels: map[string]string{"example.com/instance": "a"}}},
		{
			name:   "bad label key",
			params: templates.TemplateParameters{Labels: map[string]string{"not a key": "a"}},
			want:   []string{"labels: FieldValueInvalid"},
		},
		{
			name:   "bad label value",
			params: templates.TemplateParameters{Labels: map[string]string{"instance": "not a value"}},
			want:   []string{"labels: FieldValueInvalid"},
		},
		{name: "as many destinations as allowed", params: templates.TemplateParameters{Destinations: destinations(MaxDestinations)}},
		{
			name:   "too many destinations",
			params: templates.TemplateParameters{Destinations: destinations(MaxDestinations + 1)},
			want:   []string{"destinations: FieldValueTooMany"},
		},
		{
			name:   "destination without a name",
			params: templates.TemplateParameters{Destinations: []templates.Destination{{Name: "a"}, {}}},
			want:   []string{"destinations[1].name: FieldValueRequired"},
		},
		{
			name:   "destination named twice",
			params: templates.TemplateParameters{Destinations: []templates.Destination{{Name: "a"}, {Name: "b"}, {Name: "a"}}},
			want:   []string{"destinations[2].name: FieldValueDuplicate"},
		},
		{
			// Property names follow the expansion engine's rule, which it checks itself.
			name: "property names are not judged here",
			params: templates.TemplateParameters{
				Properties:   map[string]string{"not-an-identifier": "x"},
				Destinations: []templates.Destination{{Name: "a", Properties: map[string]string{"func": "x"}}},
			},
		},
		{
			name: "every problem at once",
			params: templates.TemplateParameters{
				ObjectMeta:   metav1.ObjectMeta{Name: "db"},
				Labels:       map[string]string{"a b": "c"},
				Destinations: []templates.Destination{{}, {Name: "x"}, {Name: "x"}},
			},
			want: []string{
				"destinations[0].name: FieldValueRequired",
				"destinations[2].name: FieldValueDuplicate",
				"labels: FieldValueInvalid",
				"metadata.name: FieldValueInvalid",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkCauses(t, ValidateTemplateParameters(&tc.params, "web"), tc.want)
		})
	}
}

// TestTemplateParametersNameInMessage checks that a wrong name says which one is expected.
func TestTemplateParametersNameInMessage(t *testing.T) {
	errs := ValidateTemplateParameters(&templates.TemplateParameters{ObjectMeta: metav1.ObjectMeta{Name: "db"}}, "web")
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "web") {
		t.Fatalf("want one error naming the template web, got %v", errs)
	}
}
