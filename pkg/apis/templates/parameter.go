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

package templates

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// CheckValue reports whether value is acceptable for a parameter of this type. An empty value is
// always acceptable here: whether it must be filled is the Required flag's business.
func (t ParameterType) CheckValue(value string) error {
	if value == "" {
		return nil
	}
	switch t {
	case "", ParameterTypeString:
		return nil
	case ParameterTypeInt:
		if !IsInteger(value) {
			return fmt.Errorf("must be an integer")
		}
		// It is substituted as a JSON number, so it must be one Kubernetes can read.
		if !NumberFits(value) {
			return fmt.Errorf("must be an integer within ±1.8e308, the largest number Kubernetes can read")
		}
	case ParameterTypeBool:
		if value != "true" && value != "false" {
			return fmt.Errorf("must be true or false")
		}
	case ParameterTypeBase64:
		if _, err := base64.StdEncoding.DecodeString(value); err != nil {
			return fmt.Errorf("must be base64: %v", err)
		}
	case ParameterTypeNumber:
		if !IsJSONNumber(value) {
			return fmt.Errorf("must be a JSON number")
		}
	case ParameterTypeJSON:
		if !json.Valid([]byte(value)) {
			return fmt.Errorf("must be a JSON value")
		}
	default:
		return fmt.Errorf("unknown parameter type %q", t)
	}
	return nil
}

// SupportedParameterTypes lists the values Parameter.Type accepts.
var SupportedParameterTypes = []string{
	string(ParameterTypeString), string(ParameterTypeInt), string(ParameterTypeBool), string(ParameterTypeBase64),
	string(ParameterTypeNumber), string(ParameterTypeJSON),
}
