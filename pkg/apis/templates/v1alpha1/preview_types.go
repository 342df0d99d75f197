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

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplatePreview is the request and the answer of POST templates/{name}/preview: what a
// candidate content of the Template (a body, or a stored revision) would do to each of its
// instances that would move to it, rendered with each instance's own values. Nothing is
// stored, as with a TokenReview.
type TemplatePreview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; ignored.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the candidate.
	Spec TemplatePreviewSpec `json:"spec"`
	// status is the answer.
	// +optional
	Status TemplatePreviewStatus `json:"status,omitempty"`
}

// TemplatePreviewSpec is the candidate: a Template body or a stored revision.
type TemplatePreviewSpec struct {
	// template is a candidate content: a Template, templates.stencil.dev/v1alpha1 or
	// template.openshift.io/v1, as written. Its author is the caller.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Template *runtime.RawExtension `json:"template,omitempty"`
	// revision is a stored revision of the Template; exactly one of template and revision.
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// live compares each instance's candidate objects with the live ones, through a
	// server-side dry-run apply as the instance's requester, instead of with what its current
	// revision renders.
	// +optional
	Live bool `json:"live,omitempty"`
}

// PreviewClassification is what a candidate does to one instance.
// +enum
type PreviewClassification string

// The classifications of a preview, from the worst.
const (
	// PreviewForbidden: the authorization rule refuses it (the requester, or the candidate's
	// author, may not create, patch or delete an object; or the requester may not process).
	PreviewForbidden PreviewClassification = "Forbidden"
	// PreviewBreaksParameters: the instance's values do not fit the candidate's parameters.
	PreviewBreaksParameters PreviewClassification = "BreaksParameters"
	// PreviewFailed: the candidate does not render for the instance (the 422's causes).
	PreviewFailed PreviewClassification = "Failed"
	// PreviewWouldPrune: objects the instance has would be deleted (a retained object the
	// candidate drops is released, not pruned: it makes the instance Changed).
	PreviewWouldPrune PreviewClassification = "WouldPrune"
	// PreviewChanged: objects would be added or changed.
	PreviewChanged PreviewClassification = "Changed"
	// PreviewUnchanged: the instance's objects stay as they are.
	PreviewUnchanged PreviewClassification = "Unchanged"
)

// TemplatePreviewStatus is the answer of a preview.
type TemplatePreviewStatus struct {
	// revision is the candidate's number: the revision asked for, or the number the body would
	// get if stored now.
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// candidateHash is "sha256:" and the hex SHA-256 of the candidate's canonical content.
	// +optional
	CandidateHash string `json:"candidateHash,omitempty"`
	// planHash is "sha256:" and the hex SHA-256 over every previewed instance's name and the
	// hash of what the candidate renders for it, in the order of instances: equal plan hashes
	// apply equal objects.
	// +optional
	PlanHash string `json:"planHash,omitempty"`
	// counts are the number of instances of each classification.
	// +optional
	Counts map[string]int32 `json:"counts,omitempty"`
	// instances are the instances that would move to the candidate, by name.
	// +optional
	// +listType=atomic
	Instances []InstancePreview `json:"instances,omitempty"`
	// skipped are the instances that would not move (Manual, or pinned to a revision), by
	// name.
	// +optional
	// +listType=atomic
	Skipped []SkippedInstance `json:"skipped,omitempty"`
}

// InstancePreview is the preview of one instance.
type InstancePreview struct {
	// name of the TemplateInstance.
	Name string `json:"name"`
	// classification is what the candidate does to the instance.
	Classification PreviewClassification `json:"classification"`
	// fromRevision is the revision the instance runs; 0 when it has applied none.
	// +optional
	FromRevision int64 `json:"fromRevision,omitempty"`
	// renderedHash is "sha256:" and the hex SHA-256 of the objects the candidate renders for
	// the instance.
	// +optional
	RenderedHash string `json:"renderedHash,omitempty"`
	// message says why, for Forbidden, BreaksParameters and Failed.
	// +optional
	Message string `json:"message,omitempty"`
	// causes are the problems, for BreaksParameters and Failed, as a 422 lists them.
	// +optional
	// +listType=atomic
	Causes []metav1.StatusCause `json:"causes,omitempty"`
	// objects are the objects added, removed or changed.
	// +optional
	// +listType=atomic
	Objects []ObjectChange `json:"objects,omitempty"`
	// masked says that values are masked: Secret data, parameters marked secret, and values
	// read from Secrets the caller may not get.
	// +optional
	Masked bool `json:"masked,omitempty"`
}

// ObjectChange is what happens to one object of an instance.
type ObjectChange struct {
	// apiVersion of the object.
	APIVersion string `json:"apiVersion"`
	// kind of the object.
	Kind string `json:"kind"`
	// namespace of the object; empty for cluster-scoped objects.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// name of the object.
	Name string `json:"name"`
	// change is Added, Removed (pruned), Released (no longer rendered, and retained: left in
	// place, no longer the instance's) or Changed.
	Change string `json:"change"`
	// fields are the fields added, removed or changed, for Changed.
	// +optional
	// +listType=atomic
	Fields []FieldChange `json:"fields,omitempty"`
}

// FieldChange is one field of an object that changes.
type FieldChange struct {
	// path is the field's JSONPath, such as .spec.replicas or .data.password.
	Path string `json:"path"`
	// change is Added, Removed or Changed.
	Change string `json:"change"`
	// before is the JSON value before, or "(masked)"; empty when added.
	// +optional
	Before string `json:"before,omitempty"`
	// after is the JSON value after, or "(masked)"; empty when removed.
	// +optional
	After string `json:"after,omitempty"`
}

// SkippedInstance is an instance a preview leaves out, and why.
type SkippedInstance struct {
	// name of the TemplateInstance.
	Name string `json:"name"`
	// reason is Manual or Pinned.
	Reason string `json:"reason"`
}
