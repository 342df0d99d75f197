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

package template

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// MaxStoredBytes bounds a stored Template as etcd stores it (its JSON, managed fields
// included). etcd refuses a request above 1.5 MiB by default (--max-request-bytes), which the
// API server answers with a 500; kube-apiserver keeps ConfigMaps and Secrets below the same
// 1 MiB for that reason. A template given to processedtemplates is not stored and is bounded
// only by the 3 MiB request body limit.
const MaxStoredBytes = 1 << 20

// sizeErrors reports a template too large to store, at the field that holds most of it.
func sizeErrors(t *templates.Template) field.ErrorList {
	var versioned v1alpha1.Template
	if err := v1alpha1.Convert_templates_Template_To_v1alpha1_Template(t, &versioned, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	versioned.APIVersion, versioned.Kind = v1alpha1.SchemeGroupVersion.String(), "Template"
	stored, err := json.Marshal(&versioned)
	if err != nil {
		// Invalid JSON in a RawExtension: the engine's checks name it.
		return nil
	}
	if len(stored) <= MaxStoredBytes {
		return nil
	}
	name, size := largestField(t)
	return field.ErrorList{{
		Type:     field.ErrorTypeTooLong,
		Field:    name,
		BadValue: "<value omitted>",
		Detail: fmt.Sprintf("the template would be stored as %d bytes (%d of them here); a stored template may have at most %d bytes. "+
			"Split it into templates that import each other's transformers, or give it to processedtemplates, which stores nothing",
			len(stored), size, MaxStoredBytes),
	}}
}

// largestField names the field of t that holds the most bytes, roughly counted.
func largestField(t *templates.Template) (string, int) {
	rawSize := func(list []runtime.RawExtension) int {
		n := 0
		for _, r := range list {
			n += len(r.Raw)
		}
		return n
	}
	params := 0
	for _, p := range t.Parameters {
		params += len(p.Name) + len(p.DisplayName) + len(p.Description) + len(p.Value) + len(p.From)
	}
	rules := 0
	for _, r := range t.Rules {
		rules += len(r.Rule) + len(r.Message) + len(r.FieldPath)
	}
	meta := 0
	for k, v := range t.Annotations {
		meta += len(k) + len(v)
	}
	for k, v := range t.Labels {
		meta += len(k) + len(v)
	}
	for _, m := range t.ManagedFields {
		if m.FieldsV1 != nil {
			meta += len(m.FieldsV1.Raw)
		}
	}
	best, bestSize := "objects", rawSize(t.Objects)
	for _, f := range []struct {
		name string
		size int
	}{
		{"generators", rawSize(t.Generators)},
		{"transformers", rawSize(t.Transformers)},
		{"transformerOverrides", rawSize(t.TransformerOverrides)},
		{"parameters", params},
		{"rules", rules},
		{"message", len(t.Message)},
		{"metadata", meta},
	} {
		if f.size > bestSize {
			best, bestSize = f.name, f.size
		}
	}
	return best, bestSize
}
