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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +genclient
// +genclient:method=Process,verb=create,subresource=processed,input=TemplateParameters,result=List
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Template is a parameterised list of objects plus the transformers that shape them.
// Processing it returns a v1 List ready for kubectl apply.
type Template struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// message is shown to the user after processing; parameters are substituted into it.
	// +optional
	Message string `json:"message,omitempty"`
	// parameters are the values substituted into the objects, message and labels.
	// +optional
	// +listType=map
	// +listMapKey=name
	Parameters []Parameter `json:"parameters,omitempty"`
	// objects are the objects of any kind, custom resources included, that processing returns.
	// +optional
	// +listType=atomic
	// +kubebuilder:pruning:PreserveUnknownFields
	Objects []runtime.RawExtension `json:"objects,omitempty"`
	// objectLabels are added to every object and, for workloads and Services, to their selectors
	// and pod templates.
	// +optional
	ObjectLabels map[string]string `json:"objectLabels,omitempty"`
	// transformers is the ordered pipeline of KRM-style transformer configs run over the objects
	// after substitution and object labels.
	// +optional
	// +listType=atomic
	Transformers []runtime.RawExtension `json:"transformers,omitempty"`
	// transformersFrom imports the consolidated transformer lists of other Templates in the same
	// namespace.
	// +optional
	// +listType=atomic
	TransformersFrom []TransformerImport `json:"transformersFrom,omitempty"`
	// transformerOverrides are strategic-merge patches on imported transformer configs, matched by
	// apiVersion, kind and metadata.name.
	// +optional
	// +listType=atomic
	TransformerOverrides []runtime.RawExtension `json:"transformerOverrides,omitempty"`
	// transformerOrder reorders the consolidated transformer list by name.
	// +optional
	// +listType=atomic
	TransformerOrder []TransformerReference `json:"transformerOrder,omitempty"`
}

// ParameterType constrains the value of a parameter.
// +enum
type ParameterType string

// The parameter types a Template may declare.
const (
	ParameterTypeString ParameterType = "string"
	ParameterTypeInt    ParameterType = "int"
	ParameterTypeBool   ParameterType = "bool"
	ParameterTypeBase64 ParameterType = "base64"
)

// Parameter is one value substituted into a Template.
type Parameter struct {
	// name is referenced as ${NAME}, ${{NAME}}, $(NAME) or $((NAME)); it matches ^[A-Za-z_][A-Za-z0-9_]*$.
	Name string `json:"name"`
	// displayName is a human readable name.
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// description explains the parameter.
	// +optional
	Description string `json:"description,omitempty"`
	// value is the default value.
	// +optional
	Value string `json:"value,omitempty"`
	// required means processing fails when the value is still empty after generation.
	// +optional
	Required bool `json:"required,omitempty"`
	// type constrains the value: string (the default), int, bool or base64.
	// +optional
	Type ParameterType `json:"type,omitempty"`
	// generate names the generator used when the value is empty; only "expression" exists.
	// +optional
	Generate string `json:"generate,omitempty"`
	// from is the generator input, such as "[a-zA-Z0-9]{16}".
	// +optional
	From string `json:"from,omitempty"`
}

// ImportMode says where imported transformers go relative to a Template's own.
// +enum
type ImportMode string

// The import modes of TransformersFrom.
const (
	ImportModePrepend ImportMode = "prepend"
	ImportModeAppend  ImportMode = "append"
)

// TransformerImport names a Template in the same namespace whose transformers are imported.
type TransformerImport struct {
	// name of the Template.
	Name string `json:"name"`
	// importMode is prepend (the default) or append.
	// +optional
	ImportMode ImportMode `json:"importMode,omitempty"`
}

// TransformerReference names a transformer in the consolidated list.
type TransformerReference struct {
	// name is the transformer's metadata.name.
	Name string `json:"name"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateList is a list of Templates.
type TemplateList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Templates.
	Items []Template `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateParameters is the request body of templates/{name}/processed.
type TemplateParameters struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; a name, if given, must equal the Template's.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// parameters are the caller's values by parameter name.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`
	// labels are extra object labels merged over the Template's own.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// ignoreUnknownParameters accepts values for parameters the Template does not declare.
	// +optional
	IgnoreUnknownParameters bool `json:"ignoreUnknownParameters,omitempty"`
	// properties are the values of template expansion, by Go identifier.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// List is the answer of processing. On the wire it is a v1 List (apiVersion: v1,
// kind: List) of the processed objects, so kubectl apply -f - takes it as it is; it also carries
// the substituted message and the final parameter values, generated ones included, which
// kubectl ignores and other callers may read.
// +k8s:conversion-gen=false
type List struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the processed objects in template order.
	Items []runtime.RawExtension `json:"items"`
	// message is the template's message with parameters substituted.
	// +optional
	Message string `json:"message,omitempty"`
	// parameters are the template's parameters with the values processing used.
	// +optional
	// +listType=atomic
	Parameters []Parameter `json:"parameters,omitempty"`
}
