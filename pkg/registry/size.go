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

package registry

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/registry/storedsize"
)

// MaxStoredBytes bounds a stored object as etcd stores it: storedsize.MaxStoredBytes.
const MaxStoredBytes = storedsize.MaxStoredBytes

// FieldSize is a field of an object and roughly how many bytes it holds.
type FieldSize = storedsize.FieldSize

// SizeErrors is storedsize.SizeErrors.
func SizeErrors(versioned any, noun, kind string, fields func() []FieldSize, advice func(field string) string) field.ErrorList {
	return storedsize.SizeErrors(versioned, noun, kind, fields, advice)
}

// MetadataBytes is storedsize.MetadataBytes.
func MetadataBytes(meta *metav1.ObjectMeta) int { return storedsize.MetadataBytes(meta) }
