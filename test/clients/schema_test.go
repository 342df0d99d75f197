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

package clients

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/process/jsonschema"
)

// everyKeyword is a template whose parameters use every keyword the schema can hold, bounds
// and lengths as JSON Schema's users write them (numbers) and as Stencil's first templates did
// (strings).
const everyKeyword = `{
  "apiVersion": "templates.stencil.dev/v1alpha1", "kind": "Template",
  "metadata": {"name": "every-keyword", "annotations": {"openshift.io/display-name": "Every keyword", "description": "ajv's test"}},
  "parameters": [
    {"name": "NAME", "displayName": "Name", "description": "DNS label", "required": true, "pattern": "^[a-z][a-z0-9-]*$", "minLength": 2, "maxLength": "20"},
    {"name": "REPLICAS", "type": "int", "value": "2", "minimum": 1, "maximum": 10},
    {"name": "RATIO", "type": "number", "value": "0.5", "minimum": 0.1, "maximum": "1"},
    {"name": "DEBUG", "type": "bool", "value": "false"},
    {"name": "PASSWORD", "secret": true, "generate": "expression", "from": "[a-z]{12}", "value": "hidden"},
    {"name": "CERT", "type": "base64", "multiline": true},
    {"name": "TIER", "enum": ["gold", "silver"], "value": "gold"},
    {"name": "ZONES", "type": "json", "value": "[\"a\"]", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
    {"name": "LIMITS", "type": "json", "value": "{}", "properties": {"cpu": {"type": "int", "minimum": "1"}, "mode": {"type": "string", "enum": ["a", "b"]}}}
  ],
  "objects": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "${NAME}"},
    "data": {"replicas": "${REPLICAS}", "ratio": "${RATIO}", "debug": "${DEBUG}", "tier": "${TIER}", "zones": "${ZONES}", "limits": "${LIMITS}", "cert": "${CERT}", "password": "${PASSWORD}"}}]
}`

// schemaCase is one instance for the schema, and the keywords ajv must refuse it by (none:
// accepted).
type schemaCase struct {
	Name     string         `json:"name"`
	Instance map[string]any `json:"instance"`
	refused  string
}

// TestSchemaWithAjv compiles the served schema of a template with every keyword in ajv, strict
// mode on and Stencil's keywords declared (docs/parameters.md), and validates instances with
// it: ajv accepts and refuses what the server's processing accepts and refuses, by the keyword
// that fails. On 3731d16 there was nothing to declare the keywords by, and ajv's defaults
// refused the schema (schema_strict.js shows what they still say).
func TestSchemaWithAjv(t *testing.T) {
	client := restClient(t)
	ctx := context.Background()
	const base = "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates"
	if err := client.Post().AbsPath(base).Body([]byte(everyKeyword)).Do(ctx).Error(); err != nil {
		t.Fatalf("creating the template: %v", err)
	}
	defer client.Delete().AbsPath(base, "every-keyword").Do(ctx)
	schema, err := client.Get().AbsPath(base, "every-keyword", "schema").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(schemaFile, schema, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := node(t, "schema_strict.js", schemaFile); !strings.Contains(out, `refused: strict mode: unknown keyword: "x-stencil-`) {
		t.Errorf("ajv's defaults without the keywords declared: %s; docs/parameters.md says they refuse the schema", out)
	}

	cases := []schemaCase{
		{Name: "fewest", Instance: map[string]any{"NAME": "web"}},
		{Name: "every-value", Instance: map[string]any{"NAME": "web-1", "REPLICAS": 10, "RATIO": 0.1, "DEBUG": true, "PASSWORD": "mine",
			"CERT": "aGVsbG8=", "TIER": "silver", "ZONES": []any{"a", "b", "c"}, "LIMITS": map[string]any{"cpu": 2, "mode": "b", "other": true}}},
		{Name: "name-missing", Instance: map[string]any{"REPLICAS": 3}, refused: "required"},
		{Name: "name-pattern", Instance: map[string]any{"NAME": "Web"}, refused: "pattern"},
		{Name: "name-short", Instance: map[string]any{"NAME": "w"}, refused: "minLength"},
		{Name: "name-long", Instance: map[string]any{"NAME": strings.Repeat("w", 21)}, refused: "maxLength"},
		{Name: "replicas-over", Instance: map[string]any{"NAME": "web", "REPLICAS": 11}, refused: "maximum"},
		{Name: "replicas-under", Instance: map[string]any{"NAME": "web", "REPLICAS": 0}, refused: "minimum"},
		{Name: "replicas-fraction", Instance: map[string]any{"NAME": "web", "REPLICAS": 2.5}, refused: "type"},
		{Name: "ratio-under", Instance: map[string]any{"NAME": "web", "RATIO": 0.05}, refused: "minimum"},
		{Name: "debug-text", Instance: map[string]any{"NAME": "web", "DEBUG": "yes"}, refused: "type"},
		{Name: "tier-other", Instance: map[string]any{"NAME": "web", "TIER": "bronze"}, refused: "enum"},
		{Name: "zones-many", Instance: map[string]any{"NAME": "web", "ZONES": []any{"a", "b", "c", "d"}}, refused: "maxItems"},
		{Name: "zone-long", Instance: map[string]any{"NAME": "web", "ZONES": []any{"abcdefghi"}}, refused: "maxLength"},
		{Name: "limits-cpu", Instance: map[string]any{"NAME": "web", "LIMITS": map[string]any{"cpu": 0}}, refused: "minimum"},
		{Name: "limits-mode", Instance: map[string]any{"NAME": "web", "LIMITS": map[string]any{"mode": "c"}}, refused: "enum"},
		{Name: "unknown", Instance: map[string]any{"NAME": "web", "COLOR": "red"}, refused: "additionalProperties"},
	}
	casesJSON, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(dir, "cases.json")
	if err := os.WriteFile(casesFile, casesJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	out := node(t, "schema.js", schemaFile, casesFile, strings.Join(jsonschema.Keywords, ","))
	t.Logf("ajv:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("ajv answered %d cases of %d:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		want := "accepted " + c.Name
		if c.refused != "" {
			want = "refused " + c.Name + " " + c.refused
		}
		if lines[i] != want {
			t.Errorf("ajv: %q, want %q", lines[i], want)
		}
		// The server agrees: the instance's values as a request (docs/parameters.md, "From a
		// form to a request") are processed, or refused with a 422.
		err := client.Post().AbsPath(base, "every-keyword", "processed").Body(parametersOf(t, c.Instance)).Do(ctx).Error()
		if (err == nil) != (c.refused == "") {
			t.Errorf("%s: ajv %s, the server: %v", c.Name, lines[i], err)
		}
	}
}

// parametersOf is the TemplateParameters body of an instance: strings as they are, every
// other value as its JSON text.
func parametersOf(t *testing.T, instance map[string]any) []byte {
	t.Helper()
	params := map[string]string{}
	names := make([]string, 0, len(instance))
	for name := range instance {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if s, ok := instance[name].(string); ok {
			params[name] = s
			continue
		}
		text, err := json.Marshal(instance[name])
		if err != nil {
			t.Fatal(err)
		}
		params[name] = string(text)
	}
	body, err := json.Marshal(map[string]any{"apiVersion": "templates.stencil.dev/v1alpha1", "kind": "TemplateParameters", "parameters": params})
	if err != nil {
		t.Fatal(err)
	}
	return body
}
