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

// Package storedsize bounds what the store writes to etcd: light enough for the CLI, which
// runs the store's checks on files (stencil lint, export).
package storedsize

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxStoredBytes bounds a stored object as etcd stores it (its JSON, managed fields
// included). etcd refuses a request above 1.5 MiB by default (--max-request-bytes), which the
// API server answers with a 500; kube-apiserver keeps ConfigMaps and Secrets below the same
// 1 MiB for that reason.
const MaxStoredBytes = 1 << 20

// FieldSize is a field of an object and roughly how many bytes it holds.
type FieldSize struct {
	Name  string
	Bytes int
}

// SizeErrors reports versioned (the object as it is stored, its apiVersion and kind set) as
// too large to store when its JSON is longer than MaxStoredBytes: one error, at the largest
// of fields (asked only then), worded with noun ("the template would be stored as ...") and
// kind ("a stored Template may have ..."), then advice for that field, if any.
func SizeErrors(versioned any, noun, kind string, fields func() []FieldSize, advice func(field string) string) field.ErrorList {
	stored, err := json.Marshal(versioned)
	if err != nil {
		// Invalid JSON in a RawExtension: the checks of its content name it.
		return nil
	}
	if len(stored) <= MaxStoredBytes {
		return nil
	}
	var largest FieldSize
	for _, f := range fields() {
		if f.Bytes > largest.Bytes || largest.Name == "" {
			largest = f
		}
	}
	detail := fmt.Sprintf("the %s would be stored as %d bytes (%d of them here); a stored %s may have at most %d bytes",
		noun, len(stored), largest.Bytes, kind, MaxStoredBytes)
	if a := advice(largest.Name); a != "" {
		detail += ". " + a
	}
	return field.ErrorList{{Type: field.ErrorTypeTooLong, Field: largest.Name, BadValue: "<value omitted>", Detail: detail}}
}

// MetadataBytes roughly counts the bytes of an object's metadata that a client can grow: its
// labels, annotations and managed fields.
func MetadataBytes(meta *metav1.ObjectMeta) int {
	n := 0
	for _, m := range []map[string]string{meta.Labels, meta.Annotations} {
		for k, v := range m {
			n += len(k) + len(v)
		}
	}
	for _, m := range meta.ManagedFields {
		if m.FieldsV1 != nil {
			n += len(m.FieldsV1.Raw)
		}
	}
	return n
}
