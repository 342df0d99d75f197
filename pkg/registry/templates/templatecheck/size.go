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

package templatecheck

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/storedsize"
)

// sizeErrors reports a template too large to store, at the field that holds most of it.
func sizeErrors(t *templates.Template) field.ErrorList {
	var versioned v1alpha1.Template
	if err := v1alpha1.Convert_templates_Template_To_v1alpha1_Template(t, &versioned, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	versioned.APIVersion, versioned.Kind = v1alpha1.SchemeGroupVersion.String(), "Template"
	return storedsize.SizeErrors(&versioned, "template", "template", func() []storedsize.FieldSize { return fieldSizes(t) }, func(string) string {
		return "Split it into templates that import each other's transformers, or give it to processedtemplates, which stores nothing"
	})
}

// fieldSizes are the fields of t, each with its bytes roughly counted.
func fieldSizes(t *templates.Template) []storedsize.FieldSize {
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
	return []storedsize.FieldSize{
		{Name: "objects", Bytes: rawSize(t.Objects)},
		{Name: "generators", Bytes: rawSize(t.Generators)},
		{Name: "transformers", Bytes: rawSize(t.Transformers)},
		{Name: "transformerOverrides", Bytes: rawSize(t.TransformerOverrides)},
		{Name: "parameters", Bytes: params},
		{Name: "rules", Bytes: rules},
		{Name: "message", Bytes: len(t.Message)},
		{Name: "metadata", Bytes: storedsize.MetadataBytes(&t.ObjectMeta)},
	}
}
