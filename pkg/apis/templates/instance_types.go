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
	"k8s.io/apimachinery/pkg/types"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateInstance is one instantiation of a template: the objects it renders are applied,
// upgraded and removed with it, as the user who last changed its spec.
type TemplateInstance struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   TemplateInstanceSpec
	Status TemplateInstanceStatus
}

// TemplateInstanceSpec says what to render and with which values.
type TemplateInstanceSpec struct {
	// TemplateRef names a stored Template of the instance's namespace; exactly one of
	// TemplateRef and Template is set.
	TemplateRef *TemplateReference
	// Template is an inline Template, ours or OpenShift's, as written.
	Template *runtime.RawExtension
	// Parameters are the caller's values by parameter name.
	Parameters map[string]string
	// ParametersFrom are further values, read from the keys of Secrets and ConfigMaps;
	// Parameters win.
	ParametersFrom []ParametersSource
	// Labels are extra object labels, as TemplateParameters' labels.
	Labels map[string]string
	// Properties are the values of template expansion.
	Properties map[string]string
	// UpdatePolicy says whether the instance follows the Template's new revisions.
	UpdatePolicy UpdatePolicy
	// Requester is the user who last changed the spec; the server sets it.
	Requester *TemplateInstanceRequester
	// Adoption makes the instance take over live objects another tool manages.
	Adoption *TemplateInstanceAdoption
	// Delivery says how the objects reach the cluster; nil applies them.
	Delivery *Delivery
}

// TemplateReference names a Template in the same namespace.
type TemplateReference struct {
	// Name of the Template.
	Name string
	// Revision pins a revision of the Template; 0 follows UpdatePolicy.
	Revision int64
}

// ParametersSource is where further parameter values come from: exactly one of SecretRef and
// ConfigMapRef.
type ParametersSource struct {
	// SecretRef names a Secret of the namespace whose keys are parameter names.
	SecretRef *SecretReference
	// ConfigMapRef names a ConfigMap of the namespace whose keys are parameter names.
	ConfigMapRef *ConfigMapReference
}

// ConfigMapReference names a ConfigMap in the same namespace.
type ConfigMapReference struct {
	// Name of the ConfigMap.
	Name string
}

// SecretReference names a Secret in the same namespace.
type SecretReference struct {
	// Name of the Secret.
	Name string
}

// TemplateInstanceRequester is the identity the controller acts as.
type TemplateInstanceRequester struct {
	Username string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// TemplateInstanceStatus is what the controller observed and did.
type TemplateInstanceStatus struct {
	// ObservedGeneration is the generation the status describes.
	ObservedGeneration int64
	// Conditions are Ready, Progressing and Failed.
	Conditions []metav1.Condition
	// TemplateResourceVersion is the resourceVersion of the stored Template last rendered.
	TemplateResourceVersion string
	// TemplateRevision is the revision of the stored Template last applied.
	TemplateRevision *AppliedRevision
	// Objects are the objects the instance manages, in apply order.
	Objects []TemplateInstanceObject
	// GeneratedParametersSecret names the Secret holding the generated parameter values.
	GeneratedParametersSecret string
	// Adoption is the plan of the takeover Spec.Adoption asks for, and how far it went.
	Adoption *AdoptionStatus
	// Artifact is what a published instance published last.
	Artifact *PublishedArtifact
}

// TemplateInstanceObject is one object an instance manages.
type TemplateInstanceObject struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        types.UID
	// ResourceVersion is the object's as the last apply left it.
	ResourceVersion string
	// Ready says the object reached its kind's ready state.
	Ready bool
	// Lifecycle is retain when the object is left in place on uninstall or prune.
	Lifecycle string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateInstanceList is a list of TemplateInstances.
type TemplateInstanceList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []TemplateInstance
}
