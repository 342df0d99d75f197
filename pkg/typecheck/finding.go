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

package typecheck

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Severity grades a finding. Errors are what kube-apiserver would refuse whatever the values;
// warnings what it refuses for some values (a default, a number parameter's fraction) or on
// some clusters (a version skew); notes say what was not checked.
type Severity string

// The severities, in SARIF's words.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Rule names what a finding is about; stencil lint's SARIF lists them.
type Rule string

// The rules of the type check.
const (
	// UnknownField is a member the kind's schema does not have (spec.replica).
	UnknownField Rule = "unknown-field"
	// WrongType is a value of another JSON type than the field's, as written or as
	// substitution makes it (replicas: ${REPLICAS}).
	WrongType Rule = "wrong-type"
	// RequiredField is a field the kind requires that the object leaves out.
	RequiredField Rule = "required-field"
	// EnumValue is a value the field's enum does not list.
	EnumValue Rule = "enum-value"
	// UnknownKind is a kind its group does not serve, in that version or any.
	UnknownKind Rule = "unknown-kind"
	// Unchecked is a kind no schema describes.
	Unchecked Rule = "unchecked-kind"
)

// Finding is one problem of a template, at a field path of the template
// (objects[2].spec.replicas).
type Finding struct {
	Path     *field.Path
	Severity Severity
	Rule     Rule
	Message  string
}

// String is the finding as a line: path: message.
func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Path, f.Message) }
