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

package process

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// lenientJSON reads parameters as encoding/json would: a repeated member's last value wins
// and invalid UTF-8 becomes U+FFFD.
var lenientJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// decodeParameters reads a template's parameters array token by token. Parameters are most of
// what a small template holds besides its objects (long descriptions), and a reflection-based
// decoder, which validates the bytes before decoding them, costs more there than compiling
// the objects. Members it does not know are skipped, as a non-strict decoder does; the
// OpenShift dialect drops type and the constraints afterwards, which its Parameter does not have.
func decodeParameters(data []byte) ([]templates.Parameter, error) {
	if params, ok := leanParameters(data); ok {
		return params, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), lenientJSON...)
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		if _, err := dec.ReadToken(); err != io.EOF {
			return nil, errors.New("unexpected data after the parameters")
		}
		return nil, nil
	case '[':
	default:
		return nil, errors.New("parameters must be an array")
	}
	var out []templates.Parameter
	for i := 0; dec.PeekKind() != ']'; i++ {
		out = append(out, templates.Parameter{})
		if err := decodeParameter(dec, &out[len(out)-1]); err != nil {
			// Every member of the wrong JSON type at once, when that is what is wrong.
			if errs := templates.JSONTypeErrors(data, reflect.TypeOf([]v1alpha1.Parameter{}), field.NewPath("parameters")); len(errs) > 0 {
				return nil, errs.ToAggregate()
			}
			return nil, fmt.Errorf("parameters[%d]%w", i, err)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, errors.New("unexpected data after the parameters")
	}
	return out, nil
}

// decodeParameter reads one parameter object; its errors start with the member they are in.
func decodeParameter(dec *jsontext.Decoder, p *templates.Parameter) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf(": %w", err)
	}
	if tok.Kind() == 'n' {
		return nil // a null parameter, as encoding/json reads it: all fields empty
	}
	if tok.Kind() != '{' {
		return errors.New(": must be an object")
	}
	// items and properties, rare and nested, are read by the typed decoder into the versioned
	// types, so that repeated members merge as they do there.
	var items *v1alpha1.JSONValueSchema
	var properties map[string]v1alpha1.JSONValueSchema
	for dec.PeekKind() != '}' {
		// The raw name, compared without allocating; only an escaped one is unquoted.
		name, err := dec.ReadValue()
		if err != nil {
			return fmt.Errorf(": %w", err)
		}
		// Messages name members by the constants below: the raw name is only valid until the
		// next read.
		var member string
		var target *string
		switch string(jsonbytes.StringContent(name)) {
		case "name":
			member, target = "name", &p.Name
		case "displayName":
			member, target = "displayName", &p.DisplayName
		case "description":
			member, target = "description", &p.Description
		case "value":
			member, target = "value", &p.Value
		case "generate":
			member, target = "generate", &p.Generate
		case "from":
			member, target = "from", &p.From
		case "type":
			member, target = "type", (*string)(&p.Type)
		case "pattern":
			member, target = "pattern", &p.Pattern
		case "required":
			err = decodeBool(dec, &p.Required, "required")
		case "multiline":
			err = decodeBool(dec, &p.Multiline, "multiline")
		case "secret":
			err = decodeBool(dec, &p.Secret, "secret")
		case "minimum":
			err = decodeBound(dec, &p.Minimum, "minimum")
		case "maximum":
			err = decodeBound(dec, &p.Maximum, "maximum")
		case "minLength":
			err = decodeLength(dec, &p.MinLength, "minLength")
		case "maxLength":
			err = decodeLength(dec, &p.MaxLength, "maxLength")
		case "maxItems":
			err = decodeLength(dec, &p.MaxItems, "maxItems")
		case "enum":
			err = decodeEnum(dec, p)
		case "items":
			err = decodeTyped(dec, &items, "items")
		case "properties":
			err = decodeTyped(dec, &properties, "properties")
		default:
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf(": %w", err)
			}
			continue
		}
		if target == nil { // a member of another type, read above
			if err != nil {
				return err
			}
			continue
		}
		v, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf(".%s: %w", member, err)
		}
		switch v.Kind() {
		case '"':
			*target = v.String()
		case 'n':
		default:
			return fmt.Errorf(".%s: must be a string", member)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf(": %w", err)
	}
	p.Items, p.Properties = nil, nil
	if items != nil {
		p.Items = &templates.JSONValueSchema{}
		_ = v1alpha1.Convert_v1alpha1_JSONValueSchema_To_templates_JSONValueSchema(items, p.Items, nil)
	}
	if properties != nil {
		p.Properties = make(map[string]templates.JSONValueSchema, len(properties))
		for name, v := range properties {
			var s templates.JSONValueSchema
			_ = v1alpha1.Convert_v1alpha1_JSONValueSchema_To_templates_JSONValueSchema(&v, &s, nil)
			p.Properties[name] = s
		}
	}
	return nil
}

// decodeTyped reads one member's value with the typed decoder into target.
func decodeTyped(dec *jsontext.Decoder, target any, member string) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return fmt.Errorf(".%s: %w", member, err)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, target); err != nil {
		// The decoder's message is worded in Go types; the template's author is told where.
		if errs := templates.JSONTypeErrors(raw, reflect.TypeOf(target).Elem(), nil); len(errs) > 0 {
			at := errs[0].Field
			if !strings.HasPrefix(at, "[") {
				at = "." + at
			}
			return fmt.Errorf(".%s%s: %s", member, at, errs[0].ErrorBody())
		}
		return fmt.Errorf(".%s: %w", member, err)
	}
	return nil
}

// decodeBool reads required, multiline or secret into target; member names it in errors.
func decodeBool(dec *jsontext.Decoder, target *bool, member string) error {
	v, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf(".%s: %w", member, err)
	}
	switch v.Kind() {
	case 't', 'f':
		*target = v.Bool()
	case 'n':
	default:
		return fmt.Errorf(".%s: must be true or false", member)
	}
	return nil
}

// decodeBound reads minimum or maximum, a number, a string or null, with the reader of every
// decoder of a template (templates.BoundFromJSON).
func decodeBound(dec *jsontext.Decoder, target **templates.Bound, member string) error {
	v, err := dec.ReadValue()
	if err != nil {
		return fmt.Errorf(".%s: %w", member, err)
	}
	if v.Kind() == 'n' {
		*target = nil
		return nil
	}
	bound, err := templates.BoundFromJSON(v)
	if err != nil {
		return fmt.Errorf(".%s: Invalid value: %s: %w", member, templates.ShortJSON(v), err)
	}
	*target = &bound
	return nil
}

// decodeLength reads minLength, maxLength or maxItems, an integer, a string holding one, or
// null, with the reader of every decoder of a template (templates.LengthFromJSON).
func decodeLength(dec *jsontext.Decoder, target **int64, member string) error {
	v, err := dec.ReadValue()
	if err != nil {
		return fmt.Errorf(".%s: %w", member, err)
	}
	if v.Kind() == 'n' {
		*target = nil
		return nil
	}
	n, err := templates.LengthFromJSON(v)
	if err != nil {
		return fmt.Errorf(".%s: Invalid value: %s: %w", member, templates.ShortJSON(v), err)
	}
	*target = &n
	return nil
}

// decodeEnum reads enum as encoding/json reads a []string: null keeps it nil, [] makes it
// empty, a null element is "".
func decodeEnum(dec *jsontext.Decoder, p *templates.Parameter) error {
	v, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf(".enum: %w", err)
	}
	switch v.Kind() {
	case 'n':
		p.Enum = nil
		return nil
	case '[':
	default:
		return errors.New(".enum: must be an array of strings")
	}
	p.Enum = []string{}
	for i := 0; dec.PeekKind() != ']'; i++ {
		e, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf(".enum[%d]: %w", i, err)
		}
		switch e.Kind() {
		case '"':
			p.Enum = append(p.Enum, e.String())
		case 'n':
			p.Enum = append(p.Enum, "")
		default:
			return fmt.Errorf(".enum[%d]: must be a string", i)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fmt.Errorf(".enum: %w", err)
	}
	return nil
}
