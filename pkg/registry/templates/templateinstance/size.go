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

package templateinstance

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/storedsize"
)

// MaxStoredBytes bounds a stored TemplateInstance as etcd stores it (its JSON, status and
// managed fields included), as it bounds a Template: storedsize.MaxStoredBytes. The half MiB
// between it and etcd's 1.5 MiB leaves room for the status the controller writes later (a
// reference per object, conditions), which no client can shrink.
const MaxStoredBytes = storedsize.MaxStoredBytes

// sizeErrors reports an instance too large to store, at the field that holds most of it.
func sizeErrors(ti *templates.TemplateInstance) field.ErrorList {
	var versioned v1alpha1.TemplateInstance
	if err := v1alpha1.Convert_templates_TemplateInstance_To_v1alpha1_TemplateInstance(ti, &versioned, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	versioned.APIVersion, versioned.Kind = v1alpha1.SchemeGroupVersion.String(), "TemplateInstance"
	return storedsize.SizeErrors(&versioned, "instance", "TemplateInstance", func() []storedsize.FieldSize { return fieldSizes(ti) }, advice)
}

// advice says how to shrink the field that holds most of an instance.
func advice(field string) string {
	switch field {
	case "spec.template":
		return "Store the template as a Template and name it in spec.templateRef (split a template over the limit into templates that import each other's transformers)"
	case "spec.parameters":
		return "Give large values through a Secret named in spec.parametersFrom"
	}
	return ""
}

// fieldSizes are the fields of ti, each with its bytes roughly counted.
func fieldSizes(ti *templates.TemplateInstance) []storedsize.FieldSize {
	mapSize := func(m map[string]string) int {
		n := 0
		for k, v := range m {
			n += len(k) + len(v)
		}
		return n
	}
	spec := &ti.Spec
	inline := 0
	if spec.Template != nil {
		inline = len(spec.Template.Raw)
	}
	sources := 0
	for _, s := range spec.ParametersFrom {
		if s.SecretRef != nil {
			sources += len(s.SecretRef.Name)
		}
		if s.ConfigMapRef != nil {
			sources += len(s.ConfigMapRef.Name)
		}
	}
	requester := 0
	if r := spec.Requester; r != nil {
		requester = len(r.Username) + len(r.UID)
		for _, g := range r.Groups {
			requester += len(g)
		}
		for k, v := range r.Extra {
			requester += len(k)
			for _, e := range v {
				requester += len(e)
			}
		}
	}
	status := len(ti.Status.TemplateResourceVersion) + len(ti.Status.GeneratedParametersSecret)
	for _, c := range ti.Status.Conditions {
		status += len(c.Type) + len(c.Reason) + len(c.Message)
	}
	for _, o := range ti.Status.Objects {
		status += len(o.APIVersion) + len(o.Kind) + len(o.Namespace) + len(o.Name) + len(o.UID)
	}
	return []storedsize.FieldSize{
		{Name: "spec.template", Bytes: inline},
		{Name: "spec.parameters", Bytes: mapSize(spec.Parameters)},
		{Name: "spec.parametersFrom", Bytes: sources},
		{Name: "spec.labels", Bytes: mapSize(spec.Labels)},
		{Name: "spec.properties", Bytes: mapSize(spec.Properties)},
		{Name: "spec.requester", Bytes: requester},
		{Name: "status", Bytes: status},
		{Name: "metadata", Bytes: storedsize.MetadataBytes(&ti.ObjectMeta)},
	}
}
