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

package v1alpha1

import (
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/conversion"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Bound is a minimum or a maximum as the template wrote it: a JSON number (1, 0.5), as JSON
// Schema's users write it, or a string holding one ("1"), as Stencil's first templates did.
// It reads back as it was written (a number no float64 holds as a string: see
// templates.BoundFromJSON) and is compared exactly, from its text. Like IntOrString, it is a
// struct that reads and writes itself, and OpenAPI describes it as either type.
// +k8s:openapi-gen=true
type Bound struct {
	// raw is the bound's JSON text, a number or a string.
	raw string
}

// NumberBound is the bound written as a JSON number, text being its JSON spelling ("10").
func NumberBound(text string) Bound { return Bound{raw: text} }

// StringBound is the bound written as a string holding text.
func StringBound(text string) Bound { return Bound{raw: string(templates.NewBound(text))} }

// Text is the bound's number text, whether written as a number or as a string.
func (b Bound) Text() string { return templates.Bound(b.raw).Text() }

// String is the bound's JSON text.
func (b Bound) String() string { return b.raw }

// UnmarshalJSON takes a number or a string; any other JSON value is an error worded about the
// template.
func (b *Bound) UnmarshalJSON(data []byte) error {
	bound, err := templates.BoundFromJSON(data)
	if err != nil {
		return err
	}
	b.raw = string(bound)
	return nil
}

// MarshalJSON writes the bound as it was read. Text that is neither a JSON number nor a JSON
// string (a Bound made in Go) is written as a string holding it, for validation to refuse.
func (b Bound) MarshalJSON() ([]byte, error) {
	if _, err := templates.BoundFromJSON([]byte(b.raw)); err == nil {
		return []byte(b.raw), nil
	}
	return json.Marshal(b.raw)
}

// OpenAPISchemaType is the OpenAPI v2 type: a string, with OpenAPISchemaFormat saying that a
// number is taken too (structured-merge-diff then takes either, as it does IntOrString).
func (Bound) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat names the form: a number, or a string holding one.
func (Bound) OpenAPISchemaFormat() string { return "number-or-string" }

// OpenAPIV3OneOfTypes are the OpenAPI v3 types: either.
func (Bound) OpenAPIV3OneOfTypes() []string { return []string{"number", "string"} }

// Length is a minLength, maxLength or maxItems: an integer, or a string holding one, as for a
// bound. It is written back as a number.
// +k8s:openapi-gen=true
type Length struct {
	n int64
}

// NewLength is the length n.
func NewLength(n int64) Length { return Length{n: n} }

// Value is the length.
func (l Length) Value() int64 { return l.n }

// UnmarshalJSON takes an integer or a string holding one; anything else is an error worded
// about the template.
func (l *Length) UnmarshalJSON(data []byte) error {
	n, err := templates.LengthFromJSON(data)
	if err != nil {
		return err
	}
	l.n = n
	return nil
}

// MarshalJSON writes the length as a JSON integer.
func (l Length) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, l.n, 10), nil }

// OpenAPISchemaType is the OpenAPI v2 type, as IntOrString's.
func (Length) OpenAPISchemaType() []string { return []string{"string"} }

// OpenAPISchemaFormat names the form: an integer, or a string holding one, as IntOrString's.
func (Length) OpenAPISchemaFormat() string { return "int-or-string" }

// OpenAPIV3OneOfTypes are the OpenAPI v3 types: either.
func (Length) OpenAPIV3OneOfTypes() []string { return []string{"integer", "string"} }

// The bounds and lengths of a Parameter and a JSONValueSchema are converted here: the
// conversion generator casts a field of a primitive type (the internal *int64) to the other
// version's type, which Length, a struct as IntOrString is, cannot take.

// Convert_v1alpha1_Parameter_To_templates_Parameter converts a parameter.
func Convert_v1alpha1_Parameter_To_templates_Parameter(in *Parameter, out *templates.Parameter, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_Parameter_To_templates_Parameter(in, out, s); err != nil {
		return err
	}
	out.Minimum, out.Maximum = internalBound(in.Minimum), internalBound(in.Maximum)
	out.MinLength, out.MaxLength, out.MaxItems = internalLength(in.MinLength), internalLength(in.MaxLength), internalLength(in.MaxItems)
	return nil
}

// Convert_templates_Parameter_To_v1alpha1_Parameter converts a parameter.
func Convert_templates_Parameter_To_v1alpha1_Parameter(in *templates.Parameter, out *Parameter, s conversion.Scope) error {
	if err := autoConvert_templates_Parameter_To_v1alpha1_Parameter(in, out, s); err != nil {
		return err
	}
	out.Minimum, out.Maximum = versionedBound(in.Minimum), versionedBound(in.Maximum)
	out.MinLength, out.MaxLength, out.MaxItems = versionedLength(in.MinLength), versionedLength(in.MaxLength), versionedLength(in.MaxItems)
	return nil
}

// Convert_v1alpha1_JSONValueSchema_To_templates_JSONValueSchema converts an element's schema.
func Convert_v1alpha1_JSONValueSchema_To_templates_JSONValueSchema(in *JSONValueSchema, out *templates.JSONValueSchema, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_JSONValueSchema_To_templates_JSONValueSchema(in, out, s); err != nil {
		return err
	}
	out.Minimum, out.Maximum = internalBound(in.Minimum), internalBound(in.Maximum)
	out.MinLength, out.MaxLength = internalLength(in.MinLength), internalLength(in.MaxLength)
	return nil
}

// Convert_templates_JSONValueSchema_To_v1alpha1_JSONValueSchema converts an element's schema.
func Convert_templates_JSONValueSchema_To_v1alpha1_JSONValueSchema(in *templates.JSONValueSchema, out *JSONValueSchema, s conversion.Scope) error {
	if err := autoConvert_templates_JSONValueSchema_To_v1alpha1_JSONValueSchema(in, out, s); err != nil {
		return err
	}
	out.Minimum, out.Maximum = versionedBound(in.Minimum), versionedBound(in.Maximum)
	out.MinLength, out.MaxLength = versionedLength(in.MinLength), versionedLength(in.MaxLength)
	return nil
}

func internalBound(b *Bound) *templates.Bound {
	if b == nil {
		return nil
	}
	out := new(templates.Bound)
	_ = Convert_v1alpha1_Bound_To_templates_Bound(b, out, nil)
	return out
}

func versionedBound(b *templates.Bound) *Bound {
	if b == nil {
		return nil
	}
	out := new(Bound)
	_ = Convert_templates_Bound_To_v1alpha1_Bound(b, out, nil)
	return out
}

func internalLength(l *Length) *int64 {
	if l == nil {
		return nil
	}
	n := l.n
	return &n
}

func versionedLength(n *int64) *Length {
	if n == nil {
		return nil
	}
	return &Length{n: *n}
}

// Convert_v1alpha1_Bound_To_templates_Bound keeps the bound's JSON text.
func Convert_v1alpha1_Bound_To_templates_Bound(in *Bound, out *templates.Bound, _ conversion.Scope) error {
	*out = templates.Bound(in.raw)
	return nil
}

// Convert_templates_Bound_To_v1alpha1_Bound keeps the bound's JSON text.
func Convert_templates_Bound_To_v1alpha1_Bound(in *templates.Bound, out *Bound, _ conversion.Scope) error {
	out.raw = string(*in)
	return nil
}
