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

// Package valuecheck judges the values of a template's parameters: a value against its
// parameter's type (OfType) and against its constraints (Checker, compiled once per plan),
// and, when a template is compiled, the values its constraints judge themselves, the default
// and the words of each enum (Declared). The engine uses it for every value it substitutes;
// validation of the API checks the constraints alone, and the engine checks their values
// here, with the checks a caller's value gets.
package valuecheck

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"stencil.dev/stencil/pkg/apis/templates"
)

// OfType reports whether value is acceptable for a parameter of type t. An empty value is
// always acceptable here: whether it must be filled is the Required flag's business.
func OfType(t templates.ParameterType, value string) error {
	if value == "" {
		return nil
	}
	switch t {
	case "", templates.ParameterTypeString:
		return nil
	case templates.ParameterTypeInt:
		if !templates.IsInteger(value) {
			return fmt.Errorf("must be an integer")
		}
		// It is substituted as a JSON number, so it must be one Kubernetes can read.
		if !templates.NumberFits(value) {
			return fmt.Errorf("must be an integer within ±1.8e308, the largest number Kubernetes can read")
		}
	case templates.ParameterTypeBool:
		if value != "true" && value != "false" {
			return fmt.Errorf("must be true or false")
		}
	case templates.ParameterTypeBase64:
		if _, err := base64.StdEncoding.DecodeString(value); err != nil {
			return fmt.Errorf("must be base64: %v", err)
		}
	case templates.ParameterTypeNumber:
		if !templates.IsJSONNumber(value) {
			return fmt.Errorf("must be a JSON number")
		}
	case templates.ParameterTypeJSON:
		if !json.Valid([]byte(value)) {
			return fmt.Errorf("must be a JSON value")
		}
	default:
		return fmt.Errorf("unknown parameter type %q", t)
	}
	return nil
}

// Types lists the values Parameter.Type accepts; none is string.
var Types = []string{
	string(templates.ParameterTypeString), string(templates.ParameterTypeInt), string(templates.ParameterTypeBool), string(templates.ParameterTypeBase64),
	string(templates.ParameterTypeNumber), string(templates.ParameterTypeJSON),
}

// KnownType reports whether t is one of Types, or none.
func KnownType(t templates.ParameterType) bool {
	return t == "" || slices.Contains(Types, string(t))
}
