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

// Package templaterevision holds the storage of TemplateRevisions, the immutable snapshots of
// Templates' contents: the canonical content and its hash, the read-only API, and the Writer
// that the Templates' storage calls after each change of a content is stored.
package templaterevision

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// HashPrefix starts every hash of a revision, an applied output and a plan.
const HashPrefix = "sha256:"

// Canonical is the content of t as a revision holds it, and its hash: the JSON of t in
// v1alpha1's spelling without metadata, author, revision, rollout, its author and status, the members of every object
// (the template's objects included) sorted and no space between tokens, so that one content
// has one text whatever the order and spacing its writer used. Two Templates render alike when
// their canonical contents are equal.
func Canonical(t *templates.Template) ([]byte, string, error) {
	var v v1alpha1.Template
	c := *t
	// How the content rolls out, and the rollout's progress, are not content.
	c.ObjectMeta, c.Author, c.Revision, c.Rollout, c.RolloutAuthor, c.Status = metav1.ObjectMeta{}, nil, nil, nil, nil, nil
	if err := v1alpha1.Convert_templates_Template_To_v1alpha1_Template(&c, &v, nil); err != nil {
		return nil, "", err
	}
	v.APIVersion, v.Kind = v1alpha1.SchemeGroupVersion.String(), "Template"
	raw, err := json.Marshal(&v)
	if err != nil {
		return nil, "", fmt.Errorf("writing the content: %w", err)
	}
	tree, err := jsonbytes.DecodeObject(raw)
	if err != nil {
		return nil, "", fmt.Errorf("reading the content: %w", err)
	}
	// The creation timestamp is written as null by encoding/json; it is metadata.
	delete(tree, "metadata")
	content, err := jsonbytes.AppendValue(nil, tree)
	if err != nil {
		return nil, "", err
	}
	return content, Hash(content), nil
}

// Hash is HashPrefix and the hex SHA-256 of data.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return HashPrefix + hex.EncodeToString(sum[:])
}

// TemplateOf is the Template a revision holds, as processing takes it: named as its Template,
// with the revision's author and number, and the revision's uid and resourceVersion, which name
// its content for good (a revision never changes), so that its plan is cached once for every
// instance that renders it.
func TemplateOf(rev *templates.TemplateRevision) (*templates.Template, error) {
	var v v1alpha1.Template
	if err := json.Unmarshal(rev.Content.Raw, &v); err != nil {
		return nil, fmt.Errorf("TemplateRevision %s/%s: reading its content: %w", rev.Namespace, rev.Name, err)
	}
	v1alpha1.SetObjectDefaults_Template(&v)
	t := &templates.Template{}
	if err := v1alpha1.Convert_v1alpha1_Template_To_templates_Template(&v, t, nil); err != nil {
		return nil, fmt.Errorf("TemplateRevision %s/%s: converting its content: %w", rev.Namespace, rev.Name, err)
	}
	t.ObjectMeta = metav1.ObjectMeta{Name: rev.Template, Namespace: rev.Namespace, UID: rev.UID, ResourceVersion: rev.ResourceVersion,
		CreationTimestamp: rev.CreationTimestamp}
	t.Author = rev.Author.DeepCopy()
	t.Revision = &templates.RevisionStamp{Number: rev.Revision, Hash: rev.Hash}
	return t, nil
}
