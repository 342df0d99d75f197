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

// RevisionStamp names one revision of a Template's content.
type RevisionStamp struct {
	// number counts the changes of the Template's content, from 1.
	Number int64 `json:"number"`
	// hash is "sha256:" and the hex SHA-256 of the canonical content (the revision's content).
	Hash string `json:"hash"`
}

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateRevision is an immutable snapshot of a Template's content, as apps/v1
// ControllerRevision is of a workload's template. The server writes one each time a change of
// a Template's content passes validation and is stored, named <template>-<number> and
// labelled templates.stencil.dev/template=<template>; clients only read them. The server keeps
// the newest --template-revision-history of each Template and every one an instance uses.
type TemplateRevision struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// template is the name of the Template of the namespace the revision is of.
	Template string `json:"template"`
	// revision is the number of the revision: 1 for the content the Template was created
	// with, one more for each change of the content.
	Revision int64 `json:"revision"`
	// hash is "sha256:" and the hex SHA-256 of content.
	Hash string `json:"hash"`
	// author is the Template's author when this content was stored: the user who wrote it.
	// +optional
	Author *TemplateAuthor `json:"author,omitempty"`
	// content is the canonical JSON of the Template's content: a v1alpha1 Template without
	// metadata, author or revision, the members of every object sorted.
	// +kubebuilder:pruning:PreserveUnknownFields
	Content runtime.RawExtension `json:"content"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TemplateRevisionList is a list of TemplateRevisions.
type TemplateRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the TemplateRevisions.
	Items []TemplateRevision `json:"items"`
}

// UpdatePolicy says whether a TemplateInstance follows its Template's new revisions.
// +enum
type UpdatePolicy string

// The update policies of TemplateInstances.
const (
	// UpdatePolicyAutomatic follows the Template: the instance moves to each new revision (as
	// the Template's rollout releases it).
	UpdatePolicyAutomatic UpdatePolicy = "Automatic"
	// UpdatePolicyManual stays on the revision the instance runs until its spec changes.
	UpdatePolicyManual UpdatePolicy = "Manual"
)

// AppliedRevision is the revision of its Template an instance last applied.
type AppliedRevision struct {
	// number is the revision's number.
	Number int64 `json:"number"`
	// appliedHash is "sha256:" and the hex SHA-256 of the objects the revision rendered for
	// the instance, as applied: equal hashes apply equal objects.
	// +optional
	AppliedHash string `json:"appliedHash,omitempty"`
	// generation is the generation of the instance's spec the revision was chosen for: a
	// Manual instance stays on number while its generation is this one.
	// +optional
	Generation int64 `json:"generation,omitempty"`
}

// The label, condition and reasons of revisions.
const (
	// LabelTemplate on a TemplateRevision names its Template.
	LabelTemplate = "templates.stencil.dev/template"
	// TemplateInstanceRevisionReconciled is True when the instance runs the revision it
	// should: the pinned one, its own (Manual), or the Template's (Automatic).
	TemplateInstanceRevisionReconciled = "RevisionReconciled"
)
