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
	// Objects are the objects of any kind that processing returns, as raw JSON.
	Objects []runtime.RawExtension
	// ObjectLabels are added to every object, its selectors and its pod templates.
	ObjectLabels map[string]string
	// Transformers is the ordered pipeline run over the objects after substitution.
	Transformers []runtime.RawExtension
	// TransformersFrom imports the consolidated transformer lists of other Templates.
	TransformersFrom []TransformerImport
	// TransformerOverrides are strategic-merge patches applied to imported transformer configs.
	TransformerOverrides []runtime.RawExtension
	// TransformerOrder reorders the consolidated transformer list by name.
	TransformerOrder []TransformerReference

	// OpenShift marks a Template given as an OpenShift template.openshift.io/v1 Template, which
	// is processed by OpenShift's rules. It lives only in memory: no version serializes it, so a
	// stored Template never has it.
	OpenShift bool
}

// ParameterType constrains the value of a parameter.
type ParameterType string

// The parameter types a Template may declare.
const (
	ParameterTypeString ParameterType = "string"
	ParameterTypeInt    ParameterType = "int"
	ParameterTypeBool   ParameterType = "bool"
	ParameterTypeBase64 ParameterType = "base64"
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
}
