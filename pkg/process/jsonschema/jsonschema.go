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

// Package jsonschema describes a Template's parameters as a JSON Schema (draft 2020-12), the
// document that templates/{name}/schema serves and stencil parameters -o json-schema prints.
//
// The schema validates an instance: a JSON object with one member per parameter value, in
// its JSON type (an int parameter's value is a JSON integer, a json parameter's value is the
// JSON value itself). A request's values are the instance's members as text: strings as they
// are, every other value as its JSON text. A member left out is a value not given.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process/valuecheck"
)

// Draft is the JSON Schema dialect of every document made here.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// The Template annotations that give the schema its title and description, as OpenShift's
// console reads them.
const (
	DisplayNameAnnotation = "openshift.io/display-name"
	DescriptionAnnotation = "description"
)

// Keywords are the keywords of Stencil's own in the documents, annotations that change no
// validation. A validator in strict mode (ajv's default) refuses keywords it does not know:
// declare these with it (ajv's keywords option), as docs/parameters.md says.
var Keywords = []string{"x-stencil-secret", "x-stencil-multiline", "x-stencil-generated", "x-stencil-type"}

// Document is the schema of a template's parameters: an object with one member per parameter.
type Document struct {
	Draft       string     `json:"$schema"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Type        string     `json:"type"`
	Properties  Properties `json:"properties"`
	// Required are the parameters that neither a default nor a generator fills.
	Required []string `json:"required"`
	// AdditionalProperties is false: the server refuses values for parameters the template
	// does not declare, unless the request asks it to ignore them.
	AdditionalProperties bool `json:"additionalProperties"`
}

// Schema is the JSON Schema of a parameter, or of an element or member of a json parameter.
// Only the keywords Stencil uses are here, in the order they are written.
type Schema struct {
	Type            string            `json:"type,omitempty"`
	Title           string            `json:"title,omitempty"`
	Description     string            `json:"description,omitempty"`
	Default         json.RawMessage   `json:"default,omitempty"`
	Enum            []json.RawMessage `json:"enum,omitempty"`
	Pattern         string            `json:"pattern,omitempty"`
	Minimum         json.Number       `json:"minimum,omitempty"`
	Maximum         json.Number       `json:"maximum,omitempty"`
	MinLength       *int64            `json:"minLength,omitempty"`
	MaxLength       *int64            `json:"maxLength,omitempty"`
	ContentEncoding string            `json:"contentEncoding,omitempty"`
	WriteOnly       bool              `json:"writeOnly,omitempty"`
	Items           *Schema           `json:"items,omitempty"`
	MaxItems        *int64            `json:"maxItems,omitempty"`
	Properties      Properties        `json:"properties,omitempty"`

	Secret    bool   `json:"x-stencil-secret,omitempty"`
	Multiline bool   `json:"x-stencil-multiline,omitempty"`
	Generated string `json:"x-stencil-generated,omitempty"`
	// StencilType is the parameter's own type, which the JSON type does not always tell
	// (base64 is a string, json any value).
	StencilType string `json:"x-stencil-type,omitempty"`
}

// Property is one named member of properties.
type Property struct {
	Name   string
	Schema *Schema
}

// Properties keeps the parameters in the template's order, which is the order a form shows
// them in; a JSON object written from a Go map would sort them.
type Properties []Property

// MarshalJSON writes the properties as one object, in order.
func (p Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, prop := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(prop.Name)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(prop.Schema)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ForTemplate describes the parameters of t. A secret parameter's default is left out: the
// schema is for forms, which must not show it (writeOnly). Values that do not read as their
// type (a template that does not validate) are given as strings.
func ForTemplate(t *templates.Template) *Document {
	title := t.Annotations[DisplayNameAnnotation]
	if title == "" {
		title = t.Name
	}
	root := &Document{Draft: Draft, Title: title, Description: t.Annotations[DescriptionAnnotation], Type: "object",
		Properties: Properties{}, Required: []string{}}
	for i := range t.Parameters {
		p := &t.Parameters[i]
		root.Properties = append(root.Properties, Property{Name: p.Name, Schema: forParameter(p)})
		// A default or a generator fills a value the caller leaves out.
		if p.Required && p.Value == "" && p.Generate == "" {
			root.Required = append(root.Required, p.Name)
		}
	}
	return root
}

// forParameter describes one parameter's value.
func forParameter(p *templates.Parameter) *Schema {
	typ := p.Type
	if typ == "" {
		typ = templates.ParameterTypeString
	}
	s := forValue(p.Schema(), typ)
	s.Title, s.Description = p.DisplayName, p.Description
	s.StencilType = string(typ)
	s.Multiline = p.Multiline
	if p.Generate != "" {
		s.Generated = p.From
	}
	if p.Secret {
		s.Secret, s.WriteOnly = true, true
	} else if p.Value != "" {
		s.Default = typedValue(typ, p.Value)
	}
	if typ == templates.ParameterTypeBase64 {
		s.ContentEncoding = "base64"
	}
	// The server refuses an empty value for a required parameter it cannot generate, even
	// when it has a default: the caller's empty value is not replaced by the default.
	if p.Required && p.Generate == "" && (typ == templates.ParameterTypeString || typ == templates.ParameterTypeBase64) &&
		(s.MinLength == nil || *s.MinLength < 1) {
		one := int64(1)
		s.MinLength = &one
	}
	if p.Items != nil {
		s.Type = "array"
		s.Items, s.MaxItems = forValue(*p.Items, p.Items.Type), p.MaxItems
	}
	if len(p.Properties) > 0 {
		s.Type = "object"
		for _, name := range sortedNames(p.Properties) {
			member := p.Properties[name]
			s.Properties = append(s.Properties, Property{Name: name, Schema: forValue(member, member.Type)})
		}
	}
	return s
}

// forValue describes a value of type typ with the constraint keywords of c.
func forValue(c templates.JSONValueSchema, typ templates.ParameterType) *Schema {
	s := &Schema{Type: jsonType(typ), Pattern: c.Pattern, MinLength: c.MinLength, MaxLength: c.MaxLength}
	for _, e := range c.Enum {
		s.Enum = append(s.Enum, typedValue(typ, e))
	}
	if c.Minimum != nil {
		s.Minimum = number(c.Minimum.Text())
	}
	if c.Maximum != nil {
		s.Maximum = number(c.Maximum.Text())
	}
	return s
}

// jsonType is the JSON Schema type of a Stencil type; json has none: any value.
func jsonType(t templates.ParameterType) string {
	switch t {
	case templates.ParameterTypeInt:
		return "integer"
	case templates.ParameterTypeNumber:
		return "number"
	case templates.ParameterTypeBool:
		return "boolean"
	case templates.ParameterTypeJSON:
		return ""
	}
	return "string"
}

// typedValue writes a value of type t as JSON: numbers, booleans and json values as
// themselves, the rest as strings.
func typedValue(t templates.ParameterType, value string) json.RawMessage {
	if valuecheck.OfType(t, value) == nil {
		switch t {
		case templates.ParameterTypeInt, templates.ParameterTypeNumber:
			return json.RawMessage(number(value))
		case templates.ParameterTypeBool:
			return json.RawMessage(value)
		case templates.ParameterTypeJSON:
			var b bytes.Buffer
			if json.Compact(&b, []byte(value)) == nil {
				return b.Bytes()
			}
		}
	}
	out, _ := json.Marshal(value)
	return out
}

// number writes a bound or an int value as a JSON number: the int type allows leading zeros,
// which JSON does not. Text that is no number at all (in a template that does not validate)
// gives no number, and its keyword is left out.
func number(s string) json.Number {
	if _, ok := templates.ParseBound(s); !ok {
		return ""
	}
	if n, ok := new(big.Int).SetString(s, 10); ok {
		return json.Number(n.String())
	}
	return json.Number(s)
}

// sortedNames gives the members of a properties map in a stable order.
func sortedNames(m map[string]templates.JSONValueSchema) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
