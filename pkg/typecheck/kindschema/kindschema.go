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

// Package kindschema writes the JSON Schema (draft-07) of one kind from the OpenAPI v3
// document a server serves for its group version, for editors: YAML language servers
// (`# yaml-language-server: $schema=...`) and validators such as ajv. It is strict where
// kube-apiserver's field validation is: a member an object does not declare is refused
// (additionalProperties: false), unless the schema keeps unknown fields. OpenAPI's own
// keywords are written as JSON Schema says them (nullable, x-kubernetes-int-or-string) and the
// rest of its extensions and formats are dropped, so that a strict validator takes it.
// hack/update-template-schema.sh writes the Template's into artifacts/schema.
package kindschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// refPrefix starts the references of a served document; definitionsPrefix those written.
const (
	refPrefix         = "#/components/schemas/"
	definitionsPrefix = "#/definitions/"
)

// Kind names the kind whose schema is written.
type Kind struct {
	Group, Version, Kind string
}

// Write returns the JSON Schema of kind from the OpenAPI v3 document doc: the kind's schema
// at the top, with apiVersion and kind required and fixed, and every schema it references
// under definitions. The output is indented JSON with sorted keys, the same for the same
// document.
func Write(doc []byte, kind Kind) ([]byte, error) {
	var openapi struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&openapi); err != nil {
		return nil, fmt.Errorf("not an OpenAPI v3 document: %w", err)
	}
	schemas := openapi.Components.Schemas
	root := ""
	for name, s := range schemas {
		if describes(s, kind) {
			root = name
		}
	}
	if root == "" {
		return nil, fmt.Errorf("the document has no schema of %s %s/%s", kind.Kind, kind.Group, kind.Version)
	}
	definitions := map[string]any{}
	var visit func(name string) error
	visit = func(name string) error {
		if _, done := definitions[name]; done {
			return nil
		}
		s, ok := schemas[name]
		if !ok {
			return fmt.Errorf("%s refers to %s, which the document does not have", root, name)
		}
		definitions[name] = nil // visiting: a schema that refers to itself is not visited again
		converted, refs := convert(s)
		definitions[name] = converted
		for _, r := range refs {
			if err := visit(r); err != nil {
				return err
			}
		}
		return nil
	}
	top, refs := convert(schemas[root])
	for _, r := range refs {
		if err := visit(r); err != nil {
			return nil, err
		}
	}
	apiVersion := kind.Version
	if kind.Group != "" {
		apiVersion = kind.Group + "/" + kind.Version
	}
	if props, ok := top["properties"].(map[string]any); ok {
		props["apiVersion"] = map[string]any{"type": "string", "enum": []any{apiVersion}, "description": describe(props["apiVersion"])}
		props["kind"] = map[string]any{"type": "string", "enum": []any{kind.Kind}, "description": describe(props["kind"])}
	}
	top["required"] = mergeRequired(top["required"], "apiVersion", "kind")
	top["$schema"] = "http://json-schema.org/draft-07/schema#"
	top["title"] = fmt.Sprintf("%s (%s)", kind.Kind, apiVersion)
	if len(definitions) > 0 {
		top["definitions"] = definitions
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(top); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// describes reports whether a schema's x-kubernetes-group-version-kind names kind.
func describes(s map[string]any, kind Kind) bool {
	gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
	for _, g := range gvks {
		m, _ := g.(map[string]any)
		if m["group"] == kind.Group && m["version"] == kind.Version && m["kind"] == kind.Kind {
			return true
		}
	}
	return false
}

// describe is the description of a property schema, if any.
func describe(v any) string {
	m, _ := v.(map[string]any)
	d, _ := m["description"].(string)
	return d
}

// mergeRequired adds names to a required list, sorted, without repeats.
func mergeRequired(list any, names ...string) []any {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if l, ok := list.([]any); ok {
		for _, v := range l {
			if s, ok := v.(string); ok {
				add(s)
			}
		}
	}
	for _, n := range names {
		add(n)
	}
	sort.Strings(out)
	res := make([]any, len(out))
	for i, n := range out {
		res[i] = n
	}
	return res
}

// kept are the keywords of OpenAPI's schema object that mean the same in JSON Schema
// draft-07; every other member (format, example, x-kubernetes-*) is dropped.
var kept = map[string]bool{
	"type": true, "description": true, "default": true, "enum": true, "required": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true, "title": true,
}

// convert writes one OpenAPI schema as JSON Schema and returns the names it references.
func convert(s map[string]any) (map[string]any, []string) {
	out := map[string]any{}
	var refs []string
	sub := func(v any) any {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		c, r := convert(m)
		refs = append(refs, r...)
		return c
	}
	for k, v := range s {
		switch {
		case k == "$ref":
			ref, _ := v.(string)
			name := strings.TrimPrefix(ref, refPrefix)
			refs = append(refs, name)
			out["$ref"] = definitionsPrefix + name
		case k == "properties":
			props := map[string]any{}
			for name, p := range v.(map[string]any) {
				props[name] = sub(p)
			}
			out["properties"] = props
		case k == "items" || k == "not":
			out[k] = sub(v)
		case k == "additionalProperties":
			out[k] = sub(v)
		case k == "allOf" || k == "anyOf" || k == "oneOf":
			list, _ := v.([]any)
			converted := make([]any, len(list))
			for i, item := range list {
				converted[i] = sub(item)
			}
			out[k] = converted
		case kept[k]:
			out[k] = v
		}
	}
	if s["x-kubernetes-int-or-string"] == true {
		delete(out, "type")
		out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	if s["nullable"] == true {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	_, hasProps := out["properties"]
	_, hasAdditional := out["additionalProperties"]
	switch {
	case s["x-kubernetes-preserve-unknown-fields"] == true:
		out["additionalProperties"] = true
	case hasProps && !hasAdditional:
		// kube-apiserver's field validation refuses a member the schema does not declare.
		out["additionalProperties"] = false
	}
	return out, refs
}
