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

package validation

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// ValidateCustomTransform validates a CustomTransform on create; the syntax of its paths is
// the JSONPath parser's to judge.
func ValidateCustomTransform(ct *templates.CustomTransform) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&ct.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, validateCustomTransformSpec(&ct.Spec, field.NewPath("spec"))...)
}

// ValidateCustomTransformUpdate validates a CustomTransform on update, as on create.
func ValidateCustomTransformUpdate(ct, old *templates.CustomTransform) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&ct.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateCustomTransformSpec(&ct.Spec, field.NewPath("spec"))...)
}

func validateCustomTransformSpec(spec *templates.CustomTransformSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.APIGroup != "" {
		for _, msg := range validation.IsDNS1123Subdomain(spec.APIGroup) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroup"), spec.APIGroup, msg))
		}
	}
	switch {
	case spec.Resource == "" && spec.Kind == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("resource"), "give resource or kind"))
	case spec.Resource != "" && spec.Kind != "":
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("kind"), "give resource or kind, not both"))
	case spec.Resource != "":
		for _, msg := range validation.IsDNS1123Label(spec.Resource) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("resource"), spec.Resource, msg))
		}
	}
	if len(spec.Remove) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("remove"), "name at least one field to remove"))
	}
	return allErrs
}
