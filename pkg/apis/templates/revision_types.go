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

// RevisionStamp names one revision of a Template's content: its number and the SHA-256 of the
// canonical content.
type RevisionStamp struct {
	// Number counts the content changes of the Template, from 1.
	Number int64
	// Hash is "sha256:" and the hex SHA-256 of the canonical content.
	Hash string
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateRevision is an immutable snapshot of a Template's content, written by the server
// each time a change of the content is stored.
type TemplateRevision struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	// Template is the name of the Template of the namespace the revision is of.
	Template string
	// Revision is the number of the revision.
	Revision int64
	// Hash is "sha256:" and the hex SHA-256 of Content.
	Hash string
	// Author is the Template's author when this content was stored.
	Author *TemplateAuthor
	// Content is the canonical JSON of the Template's content: a v1alpha1 Template without
	// metadata, author or revision, its object members sorted.
	Content runtime.RawExtension
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateRevisionList is a list of TemplateRevisions.
type TemplateRevisionList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []TemplateRevision
}

// UpdatePolicy says whether a TemplateInstance follows its Template's new revisions.
type UpdatePolicy string

// The update policies of TemplateInstances.
const (
	// UpdatePolicyAutomatic follows the Template: the instance moves to each new revision.
	UpdatePolicyAutomatic UpdatePolicy = "Automatic"
	// UpdatePolicyManual stays on the revision the instance runs until its spec changes.
	UpdatePolicyManual UpdatePolicy = "Manual"
)

// AppliedRevision is the revision of its Template an instance last applied.
type AppliedRevision struct {
	// Number is the revision's number.
	Number int64
	// AppliedHash is "sha256:" and the hex SHA-256 of the objects rendered and applied.
	AppliedHash string
	// Generation is the generation of the instance's spec the revision was chosen for.
	Generation int64
}
