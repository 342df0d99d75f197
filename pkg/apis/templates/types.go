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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Template is a parameterised list of objects plus the transformers that shape them.
type Template struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// Message is shown to the user after processing; parameters are substituted into it.
	Message string
	// Parameters are the values substituted into the objects.
	Parameters []Parameter
	// Rules are CEL expressions over the parameters' typed values that must all hold.
	Rules []ParameterRule
	// Objects are the objects of any kind that processing returns, as raw JSON.
	Objects []runtime.RawExtension
	// ObjectLabels are added to every object, its selectors and its pod templates.
	ObjectLabels map[string]string
	// Generators are KRM-style generator configs whose objects join the template's objects
	// before the transformers run.
	Generators []runtime.RawExtension
	// Transformers is the ordered pipeline run over the objects after substitution.
	Transformers []runtime.RawExtension
	// TransformersFrom imports the consolidated transformer lists of other Templates.
	TransformersFrom []TransformerImport
	// TransformerOverrides are strategic-merge patches applied to imported transformer configs.
	TransformerOverrides []runtime.RawExtension
	// TransformerOrder reorders the consolidated transformer list by name.
	TransformerOrder []TransformerReference

	// OpenShift marks a Template of OpenShift's dialect, processed by OpenShift's rules: one
	// created or posted as a template.openshift.io/v1 Template, or a v1alpha1 one with
	// dialect OpenShift.
	OpenShift bool

	// Author is the user who last changed the Template's content (every field but its
	// metadata), as the server authenticated them. The server sets it on create and on every
	// change of the content, never from the client; a TemplateInstance applies what the
	// Template renders only when its author may create it too.
	Author *TemplateAuthor

	// Revision is the revision the content is: the server sets it on create and on every
	// change of the content (as Author), never from the client, and stores the content as a
	// TemplateRevision of that number.
	Revision *RevisionStamp

	// Rollout says how the Template's Automatic instances move to a new revision; nil moves
	// them all at once. It is not content: changing it makes no revision.
	Rollout *Rollout
	// RolloutAuthor is the user who last changed how the Template's instances move: its
	// Rollout or its rollout annotations (plan hash, resume, undo). The server sets it, never
	// from the client; an Automatic instance applies what its Template renders only when this
	// user may create it and read the instance's inputs too, since that user chose when it
	// moves.
	RolloutAuthor *TemplateAuthor
	// Status is the controller's: the progress of the last rollout.
	Status *TemplateStatus
}

// TemplateAuthor is the identity that last wrote a Template's content.
type TemplateAuthor struct {
	Username string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// ParameterType constrains the value of a parameter.
type ParameterType string

// The parameter types a Template may declare.
const (
	ParameterTypeString ParameterType = "string"
	ParameterTypeInt    ParameterType = "int"
	ParameterTypeBool   ParameterType = "bool"
	ParameterTypeBase64 ParameterType = "base64"
	ParameterTypeNumber ParameterType = "number"
	ParameterTypeJSON   ParameterType = "json"
)

// GeneratorExpression is the only generator: it builds a value from an expression such as [a-z]{8}.
const GeneratorExpression = "expression"

// Parameter is one value substituted into a Template.
type Parameter struct {
	// Name is referenced as ${NAME}, ${{NAME}}, $(NAME) or $((NAME)).
	Name string
	// DisplayName is a human readable name.
	DisplayName string
	// Description explains the parameter.
	Description string
	// Value is the default value.
	Value string
	// Required means processing fails when the value is still empty.
	Required bool
	// Type constrains the value; empty means string.
	Type ParameterType
	// Generate names the generator used when the value is empty.
	Generate string
	// From is the generator input.
	From string

	// Enum lists the only values accepted, written as values are (strings).
	Enum []string
	// Pattern is an RE2 expression the value must match somewhere, as OpenAPI's pattern.
	Pattern string
	// Minimum is the smallest int or number accepted, as the template wrote it.
	// +k8s:conversion-gen=false
	Minimum *Bound
	// Maximum is the largest int or number accepted, as the template wrote it.
	// +k8s:conversion-gen=false
	Maximum *Bound
	// MinLength is the fewest characters a string value may have.
	// +k8s:conversion-gen=false
	MinLength *int64
	// MaxLength is the most characters a string value may have.
	// +k8s:conversion-gen=false
	MaxLength *int64
	// Multiline hints to a UI that the value spans lines.
	Multiline bool
	// Secret says the value is masked in UIs and not printed by the CLI unless asked.
	Secret bool
	// Items, for type json, makes the value an array whose every element keeps this schema.
	Items *JSONValueSchema
	// MaxItems, with Items, is the most elements the array may have.
	// +k8s:conversion-gen=false
	MaxItems *int64
	// Properties, for type json, makes the value an object whose members named here keep
	// their schemas.
	Properties map[string]JSONValueSchema
}

// JSONValueSchema describes an element or a member of a json parameter's value, one level deep.
type JSONValueSchema struct {
	// Type is the JSON type: string, int, number, bool, or json for any value.
	Type ParameterType
	// Enum, Pattern, Minimum, Maximum, MinLength and MaxLength are a Parameter's constraints.
	Enum    []string
	Pattern string
	// +k8s:conversion-gen=false
	Minimum *Bound
	// +k8s:conversion-gen=false
	Maximum *Bound
	// +k8s:conversion-gen=false
	MinLength *int64
	// +k8s:conversion-gen=false
	MaxLength *int64
}

// ImportMode says where imported transformers go relative to a Template's own.
type ImportMode string

// The import modes of TransformersFrom.
const (
	ImportModePrepend ImportMode = "prepend"
	ImportModeAppend  ImportMode = "append"
)

// TransformerImport names a Template in the same namespace whose transformers are imported.
type TransformerImport struct {
	// Name of the Template.
	Name string
	// ImportMode is prepend or append.
	ImportMode ImportMode
}

// TransformerReference names a transformer in the consolidated list.
type TransformerReference struct {
	// Name is the transformer's metadata.name.
	Name string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateList is a list of Templates.
type TemplateList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Template
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateParameters is the request body of templates/{name}/processed.
type TemplateParameters struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// Parameters are the caller's values by parameter name.
	Parameters map[string]string
	// Labels are extra object labels merged over the Template's own.
	Labels map[string]string
	// IgnoreUnknownParameters accepts values for parameters the Template does not declare.
	IgnoreUnknownParameters bool
	// Properties are the values of template expansion.
	Properties map[string]string
	// Destinations, when given, process the template once for each, with the destination's
	// properties over Properties; the answer holds every destination's objects in order.
	Destinations []Destination
}

// Destination is one place the processed objects go to, with its own expansion properties.
type Destination struct {
	// Name is written into each of the destination's objects, in the
	// templates.stencil.dev/destination annotation.
	Name string
	// Properties override the request's Properties for this destination.
	Properties map[string]string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CustomTransform removes fields from every processed object it binds to; it is the cluster
// administrator's policy and applies after a template's own transformers.
type CustomTransform struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   CustomTransformSpec
	Status CustomTransformStatus
}

// CustomTransformSpec says which objects a CustomTransform binds to and what it removes.
type CustomTransformSpec struct {
	// APIGroup is the group of the objects; empty for the core group.
	APIGroup string
	// Resource is the lowercase plural resource of the objects; Kind may be given instead.
	Resource string
	// Kind is the kind of the objects, an alternative to Resource.
	Kind string
	// Remove are the JSONPath expressions of the fields to remove.
	Remove []string
}

// CustomTransformStatus reports whether the spec is in force.
type CustomTransformStatus struct {
	// ObservedGeneration is the generation the conditions describe.
	ObservedGeneration int64
	// Conditions hold Accepted: whether every path of spec.remove parsed.
	Conditions []metav1.Condition
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CustomTransformList is a list of CustomTransforms.
type CustomTransformList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []CustomTransform
}
