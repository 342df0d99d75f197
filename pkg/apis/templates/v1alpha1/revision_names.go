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
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The labels of a TemplateRevision, as a ControllerRevision carries its owner's and its hash.
// LabelTemplate (revision_types.go) names the Template when its name fits a label value (63
// characters); a longer name is found with the field selector template=NAME.
const (
	// LabelTemplateUID on a revision is the uid of its Template, as its owner reference says:
	// a Template deleted and created again under its name starts its numbers again, and its
	// revisions are told apart from the old one's by it.
	LabelTemplateUID = "templates.stencil.dev/template-uid"
	// LabelRevisionHash is the first 12 hex digits of the SHA-256 of the revision's content
	// (the HASH column of kubectl get templaterevisions).
	LabelRevisionHash = "templates.stencil.dev/revision-hash"
)

// revisionNameTag is how many hex digits of the SHA-256 of a long Template name its revisions'
// names keep.
const revisionNameTag = 10

// RevisionName names revision number of the Template template: <template>-<number>, as a
// ControllerRevision is named after its workload. A Template's name may be as long as an
// object's name may be (253 characters); when the number would not fit after it, the name
// keeps the start of the Template's name, then a hash of all of it, then the number, so that
// two long names that start alike never share a revision name.
func RevisionName(template string, number int64) string {
	suffix := "-" + strconv.FormatInt(number, 10)
	if len(template)+len(suffix) <= validation.DNS1123SubdomainMaxLength {
		return template + suffix
	}
	sum := sha256.Sum256([]byte(template))
	tag := "-" + hex.EncodeToString(sum[:])[:revisionNameTag]
	// The kept start must end as a name's part must: with a letter or digit.
	prefix := strings.TrimRight(template[:validation.DNS1123SubdomainMaxLength-len(suffix)-len(tag)], ".-")
	return prefix + tag + suffix
}

// RevisionOwnedBy says the revision whose metadata is rev belongs to the Template whose uid is
// uid: its controller reference names that uid. A revision written before revisions had owners
// (no hash label, no owner) is told by its uid label; one a garbage collector orphaned (the
// hash label, no owner) is nobody's.
func RevisionOwnedBy(rev metav1.Object, uid types.UID) bool {
	if ref := metav1.GetControllerOfNoCopy(rev); ref != nil {
		return ref.UID == uid
	}
	_, current := rev.GetLabels()[LabelRevisionHash]
	return !current && len(rev.GetOwnerReferences()) == 0 && rev.GetLabels()[LabelTemplateUID] == string(uid)
}

// TemplateLabel is the value of LabelTemplate for the Template named template, and whether it
// has one: a name longer than a label value may be has none.
func TemplateLabel(template string) (string, bool) {
	return template, len(validation.IsValidLabelValue(template)) == 0
}
