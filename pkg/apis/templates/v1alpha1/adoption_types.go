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
	"k8s.io/apimachinery/pkg/types"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TemplateInstanceAdoption says which live objects, managed by another tool, a
// TemplateInstance takes over instead of refusing them: exactly one of helmRelease, applySet
// and selector. The instance plans first and touches nothing when the plan is refused; then
// it takes each object over with a forced server-side apply under its field manager (the old
// tool's field ownership moved to it first, so that no field stays the old tool's), keeps the
// values the old tool generated, and removes the old tool's records last. It is set on
// create and never changes.
type TemplateInstanceAdoption struct {
	// helmRelease names a Helm release of the instance's namespace (Helm 3 or 4, stored in
	// Secrets): its deployed revision's objects are taken over, and every record of the
	// release (the sh.helm.release.v1.<name>.v<revision> Secrets) is removed once every
	// object is the instance's. Helm is never run: nothing is uninstalled.
	// +optional
	HelmRelease string `json:"helmRelease,omitempty"`
	// applySet names the parent of a kubectl ApplySet of the namespace (KEP-3659) as kubectl's
	// --applyset flag does: NAME for a Secret, or configmaps/NAME, secrets/NAME. Its members
	// are taken over and the parent removed last.
	// +optional
	ApplySet string `json:"applySet,omitempty"`
	// selector selects live objects of the instance's namespace, of the kinds the template
	// renders: those are taken over.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// managers are field managers whose ownership moves to the instance besides the old
	// tool's own: Helm's (helm...) for a release, kubectl's (kubectl...) for an ApplySet and a
	// selector. Controllers' managers (kube-controller-manager) keep their fields.
	// +optional
	// +listType=atomic
	Managers []string `json:"managers,omitempty"`
	// retainUntilUpgrade gives every object taken over the retain lifecycle until the
	// instance's first successful upgrade: deleting the instance before then leaves them in
	// place.
	// +optional
	RetainUntilUpgrade bool `json:"retainUntilUpgrade,omitempty"`
	// leaveUnrendered leaves in place the objects of the source that the template does not
	// render, without the old tool's ownership, instead of refusing the adoption.
	// +optional
	LeaveUnrendered bool `json:"leaveUnrendered,omitempty"`
}

// AdoptionPhase is how far an adoption went.
// +enum
type AdoptionPhase string

// The phases of an adoption.
const (
	// AdoptionPlanned: the plan was made and nothing was touched (a dry run).
	AdoptionPlanned AdoptionPhase = "Planned"
	// AdoptionRefused: the plan is refused (objects: problems, immutable); nothing was
	// touched.
	AdoptionRefused AdoptionPhase = "Refused"
	// AdoptionAdopting: the instance is taking the objects over.
	AdoptionAdopting AdoptionPhase = "Adopting"
	// AdoptionAdopted: every object is the instance's and the old tool's records are gone.
	AdoptionAdopted AdoptionPhase = "Adopted"
)

// AdoptionAction is what adoption does with one object.
// +enum
type AdoptionAction string

// The actions of an adoption.
const (
	// AdoptionAdopt takes a live object of the source over.
	AdoptionAdopt AdoptionAction = "Adopt"
	// AdoptionCreate creates an object the template renders and the cluster lacks.
	AdoptionCreate AdoptionAction = "Create"
	// AdoptionOwned is an object that is already the instance's.
	AdoptionOwned AdoptionAction = "Owned"
	// AdoptionLeaveInPlace leaves an object of the source the template does not render.
	AdoptionLeaveInPlace AdoptionAction = "LeaveInPlace"
	// AdoptionRefuse is an object the adoption cannot take; problems say why.
	AdoptionRefuse AdoptionAction = "Refuse"
)

// AdoptionStatus is the plan of an adoption and how far it went.
type AdoptionStatus struct {
	// phase is Planned, Refused, Adopting or Adopted.
	// +optional
	Phase AdoptionPhase `json:"phase,omitempty"`
	// message says what happens next, or why not.
	// +optional
	Message string `json:"message,omitempty"`
	// source describes what is adopted: "Helm release shop/web revision 2 (chart web-1.0.0)".
	// +optional
	Source string `json:"source,omitempty"`
	// generation is the instance's generation and revision the Template revision the objects
	// were taken over at: retainUntilUpgrade holds until the instance runs another.
	// +optional
	Generation int64 `json:"generation,omitempty"`
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// objects are the plan of every object: the template's, then the source's it lacks.
	// +optional
	// +listType=atomic
	Objects []AdoptionObject `json:"objects,omitempty"`
	// generatedParameters say, for each generated parameter of the template, where its value
	// is kept from, or why a new one is generated. Values are never shown.
	// +optional
	// +listType=atomic
	GeneratedParameters []AdoptedParameter `json:"generatedParameters,omitempty"`
	// records are the old tool's records removed once every object is the instance's: a
	// Helm release's Secrets, an ApplySet's parent.
	// +optional
	// +listType=atomic
	Records []string `json:"records,omitempty"`
}

// AdoptionObject is the plan of one object.
type AdoptionObject struct {
	// apiVersion of the object.
	APIVersion string `json:"apiVersion"`
	// kind of the object.
	Kind string `json:"kind"`
	// namespace of the object; empty for cluster-scoped objects.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// name of the object.
	Name string `json:"name"`
	// uid of the live object; empty for one to create.
	// +optional
	UID types.UID `json:"uid,omitempty"`
	// action is Adopt, Create, Owned, LeaveInPlace or Refuse.
	Action AdoptionAction `json:"action"`
	// lifecycle is retain or delete: what becomes of the object when the instance is deleted
	// or stops rendering it.
	// +optional
	Lifecycle string `json:"lifecycle,omitempty"`
	// changed are the fields the template's render changes or adds, as paths
	// (spec.replicas); never values.
	// +optional
	// +listType=atomic
	Changed []string `json:"changed,omitempty"`
	// removed are the fields the old tool set that the render does not: the takeover removes
	// them.
	// +optional
	// +listType=atomic
	Removed []string `json:"removed,omitempty"`
	// managers are the field managers whose ownership moves to the instance.
	// +optional
	// +listType=atomic
	Managers []string `json:"managers,omitempty"`
	// immutable are the immutable fields the render would change: each refuses the
	// adoption, which never recreates an object.
	// +optional
	// +listType=atomic
	Immutable []string `json:"immutable,omitempty"`
	// problems refuse the adoption.
	// +optional
	// +listType=atomic
	Problems []string `json:"problems,omitempty"`
}

// AdoptedParameter says where a generated parameter's value comes from.
type AdoptedParameter struct {
	// name of the parameter.
	Name string `json:"name"`
	// from names the live object and field the value is kept from; empty when a new value is
	// generated.
	// +optional
	From string `json:"from,omitempty"`
	// reason says why a new value is generated.
	// +optional
	Reason string `json:"reason,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Adoption is the request and the answer of POST adoptions: a TemplateInstance to create
// whose spec.adoption names what it takes over, and the plan of that takeover. With dryRun
// only the plan is made; without, a refused plan is a 422 naming every problem and nothing
// is touched, else the instance is created and its controller takes the objects over. An
// Adoption is never stored; posting one again for an instance that exists with the same
// adoption changes nothing and answers how far it went.
type Adoption struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata: name is the TemplateInstance's; labels and annotations are
	// its own.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the TemplateInstance's spec; its adoption must be set.
	Spec TemplateInstanceSpec `json:"spec"`
	// status is the plan, and how far the adoption went.
	// +optional
	Status AdoptionStatus `json:"status,omitempty"`
}

// The condition of an adopting instance and the lifecycle of objects.
const (
	// TemplateInstanceAdopted is True once an adopting instance took every object over and
	// removed the old tool's records; False while it plans or takes over, or when refused.
	TemplateInstanceAdopted = "Adopted"
	// AnnotationLifecycle on an object of a template says what becomes of it when its
	// instance is deleted or stops rendering it: LifecycleDelete (the default) or
	// LifecycleRetain (left in place, no longer the instance's).
	AnnotationLifecycle = templates.LifecycleAnnotation
	LifecycleDelete     = templates.LifecycleDelete
	LifecycleRetain     = templates.LifecycleRetain
)
