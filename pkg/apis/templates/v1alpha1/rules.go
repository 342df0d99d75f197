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

// ParameterRule is a CEL expression over the parameters that must hold for a template to be
// processed. The expression sees the parameters as params, each in its type: string and base64
// values are strings, int an int, number a double, bool a bool, and a json value a list, a map
// or a scalar. A parameter left empty is absent (has(params.X) is false), except for string
// and base64 ones, which are the empty string.
type ParameterRule struct {
	// rule is the CEL expression; it must evaluate to a bool, for example
	// "params.MIN_REPLICAS <= params.MAX_REPLICAS". It is compiled with the environment and
	// the cost estimation of CustomResourceDefinitions' x-kubernetes-validations.
	Rule string `json:"rule"`
	// message is the error reported when the rule is false; empty means "failed rule: <rule>".
	// +optional
	Message string `json:"message,omitempty"`
	// fieldPath names the parameter the error is reported at (its parameters[i] path); empty
	// means the rule itself (rules[i]).
	// +optional
	FieldPath string `json:"fieldPath,omitempty"`
}
