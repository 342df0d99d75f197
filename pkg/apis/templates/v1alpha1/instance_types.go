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
	"k8s.io/apimachinery/pkg/types"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateInstance is one instantiation of a template. Its controller renders the template
// with the spec's values and applies the objects, as the user who last changed the spec; it
// upgrades them when the spec or the stored Template changes, prunes what is no longer
// rendered, and deletes them with the instance.
type TemplateInstance struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what to render and with which values.
	Spec TemplateInstanceSpec `json:"spec"`
	// status is what the controller observed and did.
	// +optional
	Status TemplateInstanceStatus `json:"status,omitempty"`
}

// TemplateInstanceSpec says what to render and with which values. Every field may change: a
// change is an upgrade.
type TemplateInstanceSpec struct {
	// templateRef names a stored Template of the instance's namespace; exactly one of
	// templateRef and template is set.
	// +optional
	TemplateRef *TemplateReference `json:"templateRef,omitempty"`
	// template is an inline Template: templates.stencil.dev/v1alpha1, or OpenShift's
	// template.openshift.io/v1 (processed by OpenShift's rules).
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Template *runtime.RawExtension `json:"template,omitempty"`
	// parameters are the values by parameter name.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`
	// parametersFrom are further values read from the keys of Secrets and ConfigMaps of the
	// namespace, each key a parameter name; later sources win over earlier ones and parameters
	// win over all. A value read from a Secret is secret wherever it goes, whatever the
	// template declares; every author of a Template the instance renders must be allowed to
	// get each source, or the instance renders nothing.
	// +optional
	// +listType=atomic
	ParametersFrom []ParametersSource `json:"parametersFrom,omitempty"`
	// labels are extra object labels merged over the template's own.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// properties are the values of template expansion, by Go identifier.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// updatePolicy says whether the instance follows the Template's new revisions: Automatic
	// (the default without a pin) moves it to each new revision, Manual (the default with a
	// pin) keeps the revision it runs until its spec changes. A pinned revision wins over
	// either.
	// +optional
	UpdatePolicy UpdatePolicy `json:"updatePolicy,omitempty"`
	// requester is the user who last changed the spec, set by the server on create and on
	// every spec change; a client's value is overwritten. The controller acts as this user.
	// +optional
	Requester *TemplateInstanceRequester `json:"requester,omitempty"`
	// adoption makes the instance take over live objects another tool manages (a Helm
	// release, a kubectl ApplySet, the objects of a label selector) instead of refusing them;
	// set on create only.
	// +optional
	Adoption *TemplateInstanceAdoption `json:"adoption,omitempty"`
	// delivery says how the objects reach the cluster: applied by the controller (the
	// default), or published as a Flux ExternalArtifact that Flux applies.
	// +optional
	Delivery *Delivery `json:"delivery,omitempty"`
}

// TemplateReference names a Template in the same namespace.
type TemplateReference struct {
	// name of the Template.
	Name string `json:"name"`
	// revision pins a revision of the Template (a TemplateRevision's number): the instance
	// renders that revision's content whatever the Template holds now.
	// +optional
	Revision int64 `json:"revision,omitempty"`
}

// ParametersSource is where further parameter values come from: exactly one of secretRef and
// configMapRef.
type ParametersSource struct {
	// secretRef names a Secret of the namespace whose keys are parameter names.
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`
	// configMapRef names a ConfigMap of the namespace whose keys (data and binaryData) are
	// parameter names.
	// +optional
	ConfigMapRef *ConfigMapReference `json:"configMapRef,omitempty"`
}

// ConfigMapReference names a ConfigMap in the same namespace.
type ConfigMapReference struct {
	// name of the ConfigMap.
	Name string `json:"name"`
}

// SecretReference names a Secret in the same namespace.
type SecretReference struct {
	// name of the Secret.
	Name string `json:"name"`
}

// TemplateInstanceRequester is the identity the controller acts as, as the API server
// authenticated it.
type TemplateInstanceRequester struct {
	// username is the user's name.
	// +optional
	Username string `json:"username,omitempty"`
	// uid identifies the user across name changes.
	// +optional
	UID string `json:"uid,omitempty"`
	// groups are the user's groups.
	// +optional
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// extra is further information the authenticator gave.
	// +optional
	Extra map[string][]string `json:"extra,omitempty"`
}

// TemplateInstanceStatus is what the controller observed and did.
type TemplateInstanceStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// conditions are Ready (every object is ready), Progressing (the controller is applying
	// the current generation) and Failed (the last attempt failed: reason and message say why).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// templateResourceVersion is the resourceVersion of the stored Template last rendered.
	// +optional
	TemplateResourceVersion string `json:"templateResourceVersion,omitempty"`
	// templateRevision is the revision of the stored Template last applied, and the hash of
	// what it rendered.
	// +optional
	TemplateRevision *AppliedRevision `json:"templateRevision,omitempty"`
	// objects are the objects the instance manages, in apply order.
	// +optional
	// +listType=atomic
	Objects []TemplateInstanceObject `json:"objects,omitempty"`
	// generatedParametersSecret names the Secret, owned by the instance, that keeps the
	// generated parameter values so that upgrades reuse them.
	// +optional
	GeneratedParametersSecret string `json:"generatedParametersSecret,omitempty"`
	// adoption is the plan of the takeover spec.adoption asks for, and how far it went.
	// +optional
	Adoption *AdoptionStatus `json:"adoption,omitempty"`
	// artifact is what a published instance published last: its ExternalArtifact's revision
	// and digest.
	// +optional
	Artifact *PublishedArtifact `json:"artifact,omitempty"`
}

// TemplateInstanceObject is one object an instance manages.
type TemplateInstanceObject struct {
	// apiVersion of the object.
	APIVersion string `json:"apiVersion"`
	// kind of the object.
	Kind string `json:"kind"`
	// namespace of the object; empty for cluster-scoped objects.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// name of the object.
	Name string `json:"name"`
	// uid of the object as applied; empty while it is planned but not yet applied.
	// +optional
	UID types.UID `json:"uid,omitempty"`
	// resourceVersion of the object as the last apply left it: a pass whose rendered objects
	// equal what was applied skips applying only while every object still has it, so that
	// an object changed behind the instance's back is applied again.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// ready says the object reached its kind's ready state.
	Ready bool `json:"ready"`
	// lifecycle is retain when the object is left in place, no longer the instance's, when
	// the instance is deleted or stops rendering it (the template's
	// templates.stencil.dev/lifecycle annotation, or an adoption's retainUntilUpgrade); empty
	// when it is deleted.
	// +optional
	Lifecycle string `json:"lifecycle,omitempty"`
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

// The annotations, finalizer and condition types of TemplateInstances.
const (
	// AnnotationRotateGeneratedParameters names, comma-separated, the generated parameters
	// whose values the controller generates again on its next pass; it removes the annotation
	// once the new values are stored. Setting it counts as a spec change: the requester becomes
	// whoever set it.
	AnnotationRotateGeneratedParameters = "templates.stencil.dev/rotate-generated-parameters"
	// AnnotationApplyCreatedWithoutCluster set to "true" consents to applying an instance
	// created while its server had no cluster (local mode without --target-kubeconfig, when
	// it was told nothing would be created): a server started later with a cluster applies
	// such an instance only with this consent, or with
	// --apply-instances-created-without-cluster. Setting it counts as a spec change: the
	// requester becomes whoever set it.
	AnnotationApplyCreatedWithoutCluster = "templates.stencil.dev/apply-created-without-cluster"
	// AnnotationDeletionPolicy set to DeletionPolicyOrphan keeps the objects when the instance
	// is deleted; any other value, or none, deletes them.
	AnnotationDeletionPolicy = "templates.stencil.dev/deletion-policy"
	// DeletionPolicyOrphan is the value of AnnotationDeletionPolicy that keeps the objects.
	DeletionPolicyOrphan = "Orphan"
	// TemplateInstanceFinalizer holds a deleted instance until its objects are gone.
	TemplateInstanceFinalizer = "templates.stencil.dev/template-instance"

	// TemplateInstanceReady is True when every object is ready.
	TemplateInstanceReady = "Ready"
	// TemplateInstanceProgressing is True while the controller applies the current spec.
	TemplateInstanceProgressing = "Progressing"
	// TemplateInstanceFailed is True when the last attempt failed; it is retried with backoff.
	TemplateInstanceFailed = "Failed"

	// ReasonNoCluster is the reason of the conditions of an instance created on a server
	// without a cluster: nothing was created, and nothing is until someone consents
	// (AnnotationApplyCreatedWithoutCluster).
	ReasonNoCluster = "NoCluster"
	// ReasonCreatedWithoutCluster is the reason of the conditions of such an instance on a
	// server that has a cluster now, waiting for that consent.
	ReasonCreatedWithoutCluster = "CreatedWithoutCluster"
)
