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

	"github.com/go-json-experiment/json/jsontext"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// lenientJSON reads parameters as encoding/json would: a repeated member's last value wins
// and invalid UTF-8 becomes U+FFFD.
var lenientJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// decodeParameters reads a template's parameters array token by token. Parameters are most of
// what a small template holds besides its objects (long descriptions), and a reflection-based
// decoder, which validates the bytes before decoding them, costs more there than compiling
// the objects. Members it does not know are skipped, as a non-strict decoder does; the
// OpenShift dialect drops type afterwards, which its Parameter does not have.
func decodeParameters(data []byte) ([]templates.Parameter, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), lenientJSON...)
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case '[':
	default:
		return nil, errors.New("parameters must be an array")
	}
	var out []templates.Parameter
	for i := 0; dec.PeekKind() != ']'; i++ {
		var p templates.Parameter
		if err := decodeParameter(dec, &p); err != nil {
			return nil, fmt.Errorf("parameters[%d]%w", i, err)
		}
		out = append(out, p)
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
		case "required":
			v, err := dec.ReadToken()
			if err != nil {
				return fmt.Errorf(".required: %w", err)
			}
			switch v.Kind() {
			case 't', 'f':
				p.Required = v.Bool()
			case 'n':
			default:
				return errors.New(".required: must be true or false")
			}
			continue
		default:
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf(": %w", err)
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
	return nil
}
