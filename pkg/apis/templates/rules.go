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

// The annotations of an object that make it conditional or repeated. They hold CEL over the
// parameters, as rules do, and never reach the output.
const (
	// IncludeWhenAnnotation holds a CEL boolean: the object is processed only when it is true.
	IncludeWhenAnnotation = "templates.stencil.dev/include-when"
	// ForEachAnnotation holds a CEL list: the object is processed once per element, with
	// ${ITEM}, ${{ITEM}} and ${INDEX} standing for the element and its index.
	ForEachAnnotation = "templates.stencil.dev/for-each"
)

// LifecycleAnnotation says what becomes of an object when its instance is deleted or a new
// revision no longer renders it: LifecycleDelete (the default) deletes it, LifecycleRetain
// leaves it in place, no longer the instance's. Unlike the annotations above it stays on the
// object.
const (
	LifecycleAnnotation = "templates.stencil.dev/lifecycle"
	LifecycleDelete     = "delete"
	LifecycleRetain     = "retain"
)

// ParameterRule is a CEL expression over the parameters that must hold for a template to be
// processed; it sees them as params, typed (an int is an int, a json value a list or map).
type ParameterRule struct {
	// Rule is the CEL expression; it must evaluate to a bool.
	Rule string
	// Message is the error when the rule is false; empty means one naming the rule.
	Message string
	// FieldPath names the parameter the error is reported at; empty means the rule itself.
	FieldPath string
}
