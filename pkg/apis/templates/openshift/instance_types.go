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
	"k8s.io/apimachinery/pkg/types"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateInstance is OpenShift's TemplateInstance: a template instantiated with the values of
// a Secret, as its requester. It is the same stored object as a TemplateInstance of
// templates.stencil.dev, and the same controller acts on it.
type TemplateInstance struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the template to instantiate and the values.
	Spec TemplateInstanceSpec `json:"spec"`
	// status describes what the controller did.
	// +optional
	Status TemplateInstanceStatus `json:"status"`
}

// TemplateInstanceSpec describes the template to instantiate.
type TemplateInstanceSpec struct {
	// template is a full copy of the template to instantiate.
	Template Template `json:"template"`
	// secret names a Secret of the namespace whose keys are parameter names and whose values
	// are the parameters' values.
	// +optional
	Secret *LocalObjectReference `json:"secret,omitempty"`
	// requester is the user the objects are created as. The server sets it to the user who
	// creates the instance or changes its spec; a client's value is overwritten.
	// +optional
	Requester *TemplateInstanceRequester `json:"requester"`
}

// LocalObjectReference names an object of the same namespace.
type LocalObjectReference struct {
	// name of the object.
	// +optional
	Name string `json:"name,omitempty"`
}

// TemplateInstanceRequester is the identity of the user the instance acts as.
type TemplateInstanceRequester struct {
	// username uniquely identifies the user among all active users.
	// +optional
	Username string `json:"username,omitempty"`
	// uid identifies the user across time.
	// +optional
	UID string `json:"uid,omitempty"`
	// groups are the user's groups.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// extra is further information the authenticator gave.
	// +optional
	Extra map[string]ExtraValue `json:"extra,omitempty"`
}

// ExtraValue is one value of TemplateInstanceRequester.Extra.
type ExtraValue []string

// TemplateInstanceStatus describes what the controller did.
type TemplateInstanceStatus struct {
	// conditions are Ready (the objects are created and ready) and InstantiateFailure (the
	// last attempt failed; the message says why).
	// +optional
	// +listType=atomic
	Conditions []TemplateInstanceCondition `json:"conditions,omitempty"`
	// objects reference the objects the instance created.
	// +optional
	// +listType=atomic
	Objects []TemplateInstanceObject `json:"objects,omitempty"`
}

// TemplateInstanceCondition is one observation of a TemplateInstance.
type TemplateInstanceCondition struct {
	// type of the condition: Ready or InstantiateFailure.
	Type TemplateInstanceConditionType `json:"type"`
	// status of the condition: True, False or Unknown.
	Status metav1.ConditionStatus `json:"status"`
	// lastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	// reason is a brief machine-readable explanation of the last transition.
	Reason string `json:"reason"`
	// message is a human-readable description of the last transition.
	Message string `json:"message"`
}

// TemplateInstanceConditionType is the type of a TemplateInstanceCondition.
type TemplateInstanceConditionType string

// The condition types OpenShift defines.
const (
	// TemplateInstanceReady is True when every object is created and ready.
	TemplateInstanceReady TemplateInstanceConditionType = "Ready"
	// TemplateInstanceInstantiateFailure is True when the last attempt failed.
	TemplateInstanceInstantiateFailure TemplateInstanceConditionType = "InstantiateFailure"
)

// TemplateInstanceObject references an object the instance created.
type TemplateInstanceObject struct {
	// ref references the object.
	// +optional
	Ref ObjectReference `json:"ref,omitempty"`
}

// ObjectReference references an object, with the fields of Kubernetes' ObjectReference.
type ObjectReference struct {
	// kind of the object.
	// +optional
	Kind string `json:"kind,omitempty"`
	// namespace of the object; empty for a cluster-scoped object.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// name of the object.
	// +optional
	Name string `json:"name,omitempty"`
	// uid of the object.
	// +optional
	UID types.UID `json:"uid,omitempty"`
	// apiVersion of the object.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// resourceVersion of the object; not set by Stencil.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// fieldPath points into the object; not set by Stencil.
	// +optional
	FieldPath string `json:"fieldPath,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateInstanceList is a list of TemplateInstances.
type TemplateInstanceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the TemplateInstances.
	Items []TemplateInstance `json:"items"`
}
