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
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/template"
)

// MaxStoredBytes bounds a stored TemplateInstance as etcd stores it (its JSON, status and
// managed fields included), as template.MaxStoredBytes bounds a Template: etcd refuses a
// request above 1.5 MiB by default, which the API server answers with a 500. The half MiB
// between the two leaves room for the status the controller writes later (a reference per
// object, conditions), which no client can shrink.
const MaxStoredBytes = template.MaxStoredBytes

// sizeErrors reports an instance too large to store, at the field that holds most of it.
func sizeErrors(ti *templates.TemplateInstance) field.ErrorList {
	var versioned v1alpha1.TemplateInstance
	if err := v1alpha1.Convert_templates_TemplateInstance_To_v1alpha1_TemplateInstance(ti, &versioned, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	versioned.APIVersion, versioned.Kind = v1alpha1.SchemeGroupVersion.String(), "TemplateInstance"
	stored, err := json.Marshal(&versioned)
	if err != nil {
		// An inline template that is not JSON: validation names it.
		return nil
	}
	if len(stored) <= MaxStoredBytes {
		return nil
	}
	name, size := largestField(ti)
	hint := ""
	switch name {
	case "spec.template":
		hint = ". Store the template as a Template and name it in spec.templateRef (split a template over the limit into templates that import each other's transformers)"
	case "spec.parameters":
		hint = ". Give large values through a Secret named in spec.parametersFrom"
	}
	return field.ErrorList{{
		Type:     field.ErrorTypeTooLong,
		Field:    name,
		BadValue: "<value omitted>",
		Detail: fmt.Sprintf("the instance would be stored as %d bytes (%d of them here); a stored TemplateInstance may have at most %d bytes%s",
			len(stored), size, MaxStoredBytes, hint),
	}}
}

// largestField names the field of ti that holds the most bytes, roughly counted.
func largestField(ti *templates.TemplateInstance) (string, int) {
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
	meta := mapSize(ti.Annotations) + mapSize(ti.Labels)
	for _, m := range ti.ManagedFields {
		if m.FieldsV1 != nil {
			meta += len(m.FieldsV1.Raw)
		}
	}
	best, bestSize := "spec.template", inline
	for _, f := range []struct {
		name string
		size int
	}{
		{"spec.parameters", mapSize(spec.Parameters)},
		{"spec.parametersFrom", sources},
		{"spec.labels", mapSize(spec.Labels)},
		{"spec.properties", mapSize(spec.Properties)},
		{"spec.requester", requester},
		{"status", status},
		{"metadata", meta},
	} {
		if f.size > bestSize {
			best, bestSize = f.name, f.size
		}
	}
	return best, bestSize
}
