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
		if !isInteger(value) {
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
		if !isJSONNumber(value) {
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

// isInteger accepts an optionally negative run of decimal digits, so that a value substituted as
// a JSON number keeps its full precision; its length is NumberFits' to judge.
func isInteger(s string) bool {
	if s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// SupportedParameterTypes lists the values Parameter.Type accepts.
var SupportedParameterTypes = []string{
	string(ParameterTypeString), string(ParameterTypeInt), string(ParameterTypeBool), string(ParameterTypeBase64),
	string(ParameterTypeNumber), string(ParameterTypeJSON),
}

// isJSONNumber follows JSON's number grammar, so that a number value substitutes through
// ${{P}} as a number and not as a string.
func isJSONNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case digits() == 0:
		return false
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	}
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}
