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

package openshift

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Template is OpenShift's Template: objects, the parameters substituted into them, and labels
// applied to each of them when the template is processed.
type Template struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// message is shown when the template is instantiated, with parameters substituted, so that
	// it can show generated credentials.
	// +optional
	Message string `json:"message,omitempty"`
	// objects are the resources the template makes. A hardcoded metadata.namespace is removed
	// when the template is processed; one holding a parameter reference is kept.
	// +listType=atomic
	// +kubebuilder:pruning:PreserveUnknownFields
	Objects []runtime.RawExtension `json:"objects"`
	// parameters are the values substituted into the objects as ${NAME} or ${{NAME}}.
	// +optional
	// +listType=atomic
	Parameters []Parameter `json:"parameters,omitempty"`
	// labels are added to the metadata.labels of every object when the template is processed.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
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

// Parameter is a named value substituted into a template; OpenShift's parameters have no type.
type Parameter struct {
	// name is referenced as ${NAME} in the objects. Required.
	Name string `json:"name"`
	// displayName is shown in user interfaces instead of the name.
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// description explains the parameter.
	// +optional
	Description string `json:"description,omitempty"`
	// value is the parameter's value; when set, the generator is not used.
	// +optional
	Value string `json:"value,omitempty"`
	// generate names the generator that fills an empty value; the only one is "expression",
	// whose from is literal text with groups such as [a-zA-Z0-9]{8}.
	// +optional
	Generate string `json:"generate,omitempty"`
	// from is the generator's input.
	// +optional
	From string `json:"from,omitempty"`
	// required means the parameter must have a value.
	// +optional
	Required bool `json:"required,omitempty"`
}
