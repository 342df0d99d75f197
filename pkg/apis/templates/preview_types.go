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

// TemplatePreview is the request and the answer of templates/{name}/preview: what a
// candidate content of the Template would do to each of its instances. Nothing is stored.
type TemplatePreview struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   TemplatePreviewSpec
	Status TemplatePreviewStatus
}

// TemplatePreviewSpec is the candidate: a Template body or a stored revision.
type TemplatePreviewSpec struct {
	// Template is a candidate content, a Template of either form as written.
	Template *runtime.RawExtension
	// Revision is a stored revision of the Template; exactly one of Template and Revision.
	Revision int64
	// Live compares each instance's candidate objects with the live ones through a
	// server-side dry-run apply as the instance's requester, instead of with what the
	// instance's current revision renders.
	Live bool
}

// PreviewClassification is what a candidate does to one instance.
type PreviewClassification string

// The classifications of a preview, from the worst.
const (
	PreviewForbidden        PreviewClassification = "Forbidden"
	PreviewBreaksParameters PreviewClassification = "BreaksParameters"
	PreviewFailed           PreviewClassification = "Failed"
	PreviewWouldPrune       PreviewClassification = "WouldPrune"
	PreviewChanged          PreviewClassification = "Changed"
	PreviewUnchanged        PreviewClassification = "Unchanged"
)

// TemplatePreviewStatus is the answer.
type TemplatePreviewStatus struct {
	// Revision is the candidate's revision number: the one asked for, or the number the
	// candidate body would get; CandidateHash the SHA-256 of its canonical content.
	Revision      int64
	CandidateHash string
	// PlanHash is the SHA-256 over every previewed instance's name and rendered output.
	PlanHash string
	// Counts are the number of instances of each classification.
	Counts map[string]int32
	// Instances are the instances that would move, by name.
	Instances []InstancePreview
	// Skipped are the instances that would not move (Manual or pinned), by name.
	Skipped []SkippedInstance
}

// InstancePreview is the preview of one instance.
type InstancePreview struct {
	Name           string
	Classification PreviewClassification
	// FromRevision is the revision the instance runs; 0 when it has applied none.
	FromRevision int64
	// RenderedHash is the SHA-256 of the objects the candidate renders for the instance.
	RenderedHash string
	// Message says why, for every classification but Unchanged and Changed.
	Message string
	// Causes are the problems of Failed and BreaksParameters, as a 422 lists them.
	Causes []metav1.StatusCause
	// Objects are the objects added, removed or changed.
	Objects []ObjectChange
	// Masked says that values were masked: Secret data, parameters marked secret, and values
	// read from Secrets the caller may not read.
	Masked bool
}

// ObjectChange is what happens to one object.
type ObjectChange struct {
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	// Change is Added, Removed or Changed.
	Change string
	// Fields are the fields added, removed or changed, for Changed.
	Fields []FieldChange
}

// FieldChange is one field of an object that changes.
type FieldChange struct {
	// Path is the field's JSONPath, such as .spec.replicas or .data["password"].
	Path string
	// Change is Added, Removed or Changed.
	Change string
	// Before and After are the JSON values, or "(masked)".
	Before string
	After  string
}

// SkippedInstance is an instance a preview leaves out, and why.
type SkippedInstance struct {
	Name   string
	Reason string
}
