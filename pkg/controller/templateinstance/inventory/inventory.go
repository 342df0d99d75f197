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

// Package inventory holds what the TemplateInstance controller, the stencil CLI and the UI
// share about an instance's members: how they are labelled, named, keyed and judged ready.
// It depends on the API types and apimachinery only, so the CLI can use it without linking
// the controller and the apiserver machinery behind it.
package inventory

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime/schema"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// PartOfLabel marks the members of an instance's apply set, ApplySet-style (KEP-3659).
const PartOfLabel = "applyset.kubernetes.io/part-of"

// GeneratedValuesLabel marks the Secrets that keep instances' generated values, so that a
// preview reads those of a namespace in one list.
const GeneratedValuesLabel = "templates.stencil.dev/generated-values"

// FieldManager owns every field the controller applies.
const FieldManager = "stencil.dev/templateinstance"

// ApplySetID is the ApplySet id of an instance: derived from its name, namespace, kind and
// group, so no other parent can claim its members.
func ApplySetID(namespace, name string) string {
	sum := sha256.Sum256([]byte(name + "." + namespace + ".TemplateInstance." + templatesv1.GroupName))
	return "applyset-" + base64.RawURLEncoding.EncodeToString(sum[:]) + "-v1"
}

// DescribeObject names an object as messages do: Kind namespace/name.
func DescribeObject(o templatesv1.TemplateInstanceObject) string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// ObjectKey identifies an object across renders: group, kind, namespace and name.
func ObjectKey(o templatesv1.TemplateInstanceObject) string {
	gv, _ := schema.ParseGroupVersion(o.APIVersion)
	return gv.Group + "/" + o.Kind + "/" + o.Namespace + "/" + o.Name
}

// HashPrefix begins every OutputHash.
const HashPrefix = "hmac-sha256:"

// OutputHash is HashPrefix and the hex HMAC-SHA256, under key, of the objects an instance
// renders, in order: what the controller records as applied (status.templateRevision.
// appliedHash) and a preview reports for each instance, so that equal hashes mean equal
// objects. Each object is preceded by its length, so that no two lists of objects write the
// same bytes. It is keyed with the server's secret (every replica has the same) because
// those who read it may not read every value the objects hold: a plain digest would let them
// test guesses of a value offline.
func OutputHash(key []byte, objects []json.RawMessage) string {
	h := hmac.New(sha256.New, key)
	var size [8]byte
	for _, obj := range objects {
		binary.BigEndian.PutUint64(size[:], uint64(len(obj)))
		h.Write(size[:])
		h.Write(obj)
	}
	return HashPrefix + hex.EncodeToString(h.Sum(nil))
}
