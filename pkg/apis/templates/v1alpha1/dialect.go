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

// Dialect names the rules a Template is processed by.
// +enum
type Dialect string

const (
	// DialectStencil is Stencil's own rules, those of an empty dialect.
	DialectStencil Dialect = "Stencil"
	// DialectOpenShift is OpenShift's rules: objectLabels reach the objects' metadata.labels
	// only, ${{P}} is typed only as a whole string, $(P) is not a reference, references to
	// undeclared parameters stay as written, and what OpenShift tolerates (duplicate parameter
	// names, invalid template labels) is accepted with a warning.
	DialectOpenShift Dialect = "OpenShift"
)
