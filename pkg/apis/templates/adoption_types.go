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
	"k8s.io/apimachinery/pkg/types"
)

// TemplateInstanceAdoption says which live objects, managed by another tool, an instance
// takes over: exactly one of HelmRelease, ApplySet and Selector.
type TemplateInstanceAdoption struct {
	// HelmRelease names a Helm release of the instance's namespace.
	HelmRelease string
	// ApplySet names a kubectl ApplySet's parent: NAME (a Secret), secrets/NAME or
	// configmaps/NAME.
	ApplySet string
	// Selector selects live objects of the namespace, of the kinds the template renders.
	Selector *metav1.LabelSelector
	// Managers are further field managers whose ownership moves to the instance.
	Managers []string
	// RetainUntilUpgrade retains every object taken over until the first upgrade.
	RetainUntilUpgrade bool
	// LeaveUnrendered leaves the source's objects the template lacks in place.
	LeaveUnrendered bool
}

// AdoptionPhase is how far an adoption went.
type AdoptionPhase string

// The phases of an adoption.
const (
	AdoptionPlanned  AdoptionPhase = "Planned"
	AdoptionRefused  AdoptionPhase = "Refused"
	AdoptionAdopting AdoptionPhase = "Adopting"
	AdoptionAdopted  AdoptionPhase = "Adopted"
)

// AdoptionAction is what adoption does with one object.
type AdoptionAction string

// AdoptionStatus is the plan of an adoption and how far it went.
type AdoptionStatus struct {
	Phase               AdoptionPhase
	Message             string
	Source              string
	Generation          int64
	Revision            int64
	Objects             []AdoptionObject
	GeneratedParameters []AdoptedParameter
	Records             []string
}

// AdoptionObject is the plan of one object.
type AdoptionObject struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	UID        types.UID
	Action     AdoptionAction
	Lifecycle  string
	Changed    []string
	Removed    []string
	Managers   []string
	Immutable  []string
	Problems   []string
}

// AdoptedParameter says where a generated parameter's value comes from.
type AdoptedParameter struct {
	Name   string
	From   string
	Reason string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Adoption is the request and the answer of POST adoptions: the TemplateInstance to create,
// whose spec's Adoption names what it takes over, and the plan. Nothing is stored but the
// instance.
type Adoption struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   TemplateInstanceSpec
	Status AdoptionStatus
}
