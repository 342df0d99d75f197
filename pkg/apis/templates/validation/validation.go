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

// Package validation holds the API checks of the templates group: metadata, names and the
// shape of fields, what can be judged from the object alone. Checks that need the engine
// (compiling references, transformer configs, JSONPath, property names, and the values a
// parameter's constraints hold, which pkg/process/valuecheck judges as it judges every value)
// are composed with these by the engine and the registry strategies, so that pkg/apis
// depends on nothing above it.
package validation

import (
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// ValidateTemplate validates the metadata, the rollout and the import list of a Template on create.
func ValidateTemplate(t *templates.Template) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&t.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validateRollout(t.Rollout, field.NewPath("rollout"))...)
	return append(allErrs, validateTransformerImports(t.TransformersFrom, field.NewPath("transformersFrom"))...)
}

// ValidateTemplateUpdate validates the metadata, the rollout and the import list of a Template on update.
func ValidateTemplateUpdate(t, old *templates.Template) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateRollout(t.Rollout, field.NewPath("rollout"))...)
	return append(allErrs, validateTransformerImports(t.TransformersFrom, field.NewPath("transformersFrom"))...)
}

func validateTransformerImports(imports []templates.TransformerImport, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, imp := range imports {
		idxPath := fldPath.Index(i)
		switch {
		case imp.Name == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		case seen[imp.Name]:
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), imp.Name))
		default:
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(imp.Name, false) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), imp.Name, msg))
			}
		}
		seen[imp.Name] = true
		switch imp.ImportMode {
		case templates.ImportModePrepend, templates.ImportModeAppend:
		default:
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("importMode"), imp.ImportMode,
				[]string{string(templates.ImportModePrepend), string(templates.ImportModeAppend)}))
		}
	}
	return allErrs
}

// MaxDestinations bounds the destinations of one request: each one repeats the expansion and
// the output of the whole template.
const MaxDestinations = 64

// ValidateTemplateParameters validates the body of templates/{name}/processed but for the
// names of its properties, which the expansion engine judges.
func ValidateTemplateParameters(params *templates.TemplateParameters, templateName string) field.ErrorList {
	var allErrs field.ErrorList
	if params.Name != "" && params.Name != templateName {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata", "name"), params.Name,
			"must be empty or the name of the template: "+templateName))
	}
	allErrs = append(allErrs, metav1validation.ValidateLabels(params.Labels, field.NewPath("labels"))...)
	if len(params.Destinations) > MaxDestinations {
		allErrs = append(allErrs, field.TooMany(field.NewPath("destinations"), len(params.Destinations), MaxDestinations))
	}
	seen := map[string]bool{}
	for i, d := range params.Destinations {
		path := field.NewPath("destinations").Index(i)
		switch {
		case d.Name == "":
			allErrs = append(allErrs, field.Required(path.Child("name"), ""))
		case seen[d.Name]:
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), d.Name))
		}
		seen[d.Name] = true
	}
	return allErrs
}
