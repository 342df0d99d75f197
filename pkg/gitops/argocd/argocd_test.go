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

package argocd

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
)

// typedTemplate has a parameter of each shape the Parameters tab knows.
var typedTemplate = &templates.Template{Parameters: []templates.Parameter{
	{Name: "NAME", DisplayName: "Name", Description: "The application's name", Value: "shop", Required: true},
	{Name: "REPLICAS", Type: templates.ParameterTypeInt, Value: "2", Enum: []string{"1", "2", "3"}},
	{Name: "DEBUG", Type: templates.ParameterTypeBool},
	{Name: "PASSWORD", Secret: true, Value: "s3cret"},
	{Name: "TOKEN", Generate: "expression", From: "[a-z]{8}"},
	{Name: "ZONES", Type: templates.ParameterTypeJSON, Items: &templates.JSONValueSchema{Type: templates.ParameterTypeString}, Value: `["eu-1","eu-2"]`},
	{Name: "PORTS", Type: templates.ParameterTypeJSON, Items: &templates.JSONValueSchema{Type: templates.ParameterTypeInt}},
	{Name: "LIMITS", Type: templates.ParameterTypeJSON, Properties: map[string]templates.JSONValueSchema{
		"cpu": {Type: templates.ParameterTypeString}, "replicas": {Type: templates.ParameterTypeInt}}, Value: `{"cpu":"1","replicas":3}`},
	{Name: "EXTRA", Type: templates.ParameterTypeJSON, Value: `{"a":[1]}`},
	{Name: "lower_name"},
}}

func TestAnnounce(t *testing.T) {
	got := Announce(typedTemplate, map[string]string{"REPLICAS": "3", "PASSWORD": "from-file"})
	if len(got) != len(typedTemplate.Parameters) {
		t.Fatalf("%d announcements for %d parameters", len(got), len(typedTemplate.Parameters))
	}
	s := func(v string) *string { return &v }
	want := []Announcement{
		{Name: "NAME", Title: "Name", Tooltip: "The application's name", Required: true, ItemType: "string", CollectionType: "string", String: s("shop")},
		{Name: "REPLICAS", Title: "REPLICAS", Tooltip: "One of: 1, 2, 3.", ItemType: "number", CollectionType: "string", String: s("3")},
		{Name: "DEBUG", Title: "DEBUG", ItemType: "boolean", CollectionType: "string"},
		{Name: "PASSWORD", Title: "PASSWORD", Tooltip: "Secret: its value is never shown here.", ItemType: "string", CollectionType: "string"},
		{Name: "TOKEN", Title: "TOKEN", Tooltip: "Generated when empty ([a-z]{8}).", ItemType: "string", CollectionType: "string"},
		{Name: "ZONES", Title: "ZONES", ItemType: "string", CollectionType: "array", Array: []string{"eu-1", "eu-2"}},
		{Name: "PORTS", Title: "PORTS", ItemType: "number", CollectionType: "array"},
		{Name: "LIMITS", Title: "LIMITS", ItemType: "string", CollectionType: "map", Map: map[string]string{"cpu": "1", "replicas": "3"}},
		{Name: "EXTRA", Title: "EXTRA", ItemType: "string", CollectionType: "string", String: s(`{"a":[1]}`)},
		{Name: "lower_name", Title: "lower_name", ItemType: "string", CollectionType: "string"},
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Errorf("announcement %d:\n got %s\nwant %s", i, g, w)
		}
	}
	out, _ := json.Marshal(got)
	if strings.Contains(string(out), "s3cret") || strings.Contains(string(out), "from-file") {
		t.Errorf("a secret value was announced: %s", out)
	}
}

func TestValuesFromArgoCD(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	params := `[{"name":"NAME","string":"a; rm -rf / $(id) ` + "`id`" + `\n'\""},` +
		`{"name":"ZONES","array":["eu-1","eu \"2\""]},{"name":"PORTS","array":["80","443"]},` +
		`{"name":"LIMITS","map":{"cpu":"500m","replicas":"4"}},{"name":"DEBUG","string":""}]`
	values, errs := Values(typedTemplate, env(map[string]string{ParametersVariable: params, "PARAM_NAME": "ignored"}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := map[string]string{
		"NAME":   "a; rm -rf / $(id) `id`\n'\"",
		"ZONES":  `["eu-1","eu \"2\""]`,
		"PORTS":  `[80,443]`,
		"LIMITS": `{"cpu":"500m","replicas":4}`,
		"DEBUG":  "",
	}
	if !reflect.DeepEqual(values, want) {
		t.Errorf("values %q, want %q", values, want)
	}
	// Without ARGOCD_APP_PARAMETERS, each parameter's PARAM_ variable, named as Argo CD names it.
	values, errs = Values(typedTemplate, env(map[string]string{"PARAM_NAME": "n", "PARAM_LOWER_NAME": "l", "PARAM_OTHER": "x"}))
	if len(errs) > 0 || !reflect.DeepEqual(values, map[string]string{"NAME": "n", "lower_name": "l"}) {
		t.Errorf("from PARAM_: %v %v", values, errs)
	}
	for _, bad := range []string{
		`not json`,
		`[{"name":"NAME","array":["a"]}]`,
		`[{"name":"ZONES","map":{"a":"b"}}]`,
		`[{"name":"PORTS","array":["eighty"]}]`,
		`[{"name":"ZONES","string":"x","array":["y"]}]`,
	} {
		if _, errs := Values(typedTemplate, env(map[string]string{ParametersVariable: bad})); len(errs) == 0 {
			t.Errorf("%s was accepted", bad)
		}
	}
	clash := &templates.Template{Parameters: []templates.Parameter{{Name: "a_b"}, {Name: "A_B"}}}
	if _, errs := Values(clash, env(map[string]string{"PARAM_A_B": "x"})); len(errs) == 0 {
		t.Error("two parameters of one PARAM_ variable were read from it")
	}
}
