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
	"strings"
	"unicode/utf8"

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
	default:
		allErrs = append(allErrs, validateKind(spec.Kind, fldPath.Child("kind"))...)
	}
	return append(allErrs, validateRemovePaths(spec.Remove, fldPath.Child("remove"))...)
}

// MaxRemovePaths bounds spec.remove: every CustomTransform in force applies each of its paths
// to every object it binds to, in every processing request, so its size is a cost that every
// template pays.
const MaxRemovePaths = 100

// MaxRemovePathLength bounds one path of spec.remove; real paths are a few dozen bytes.
const MaxRemovePathLength = 1024

// validateKind checks a kind by the rule of CustomResourceDefinition names: mixed case, but
// otherwise a DNS-1035 label.
func validateKind(kind string, fldPath *field.Path) field.ErrorList {
	if !utf8.ValidString(kind) {
		return field.ErrorList{field.Invalid(fldPath, kind, "must be valid UTF-8")}
	}
	if msgs := validation.IsDNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(fldPath, kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ","))}
	}
	return nil
}

// RemovePathsWithinLimits reports whether paths respect MaxRemovePaths, MaxRemovePathLength
// and UTF-8, so that parsing them costs little; the strategy parses only such paths.
func RemovePathsWithinLimits(paths []string) bool {
	if len(paths) > MaxRemovePaths {
		return false
	}
	for _, p := range paths {
		if len(p) > MaxRemovePathLength || !utf8.ValidString(p) {
			return false
		}
	}
	return true
}

// validateRemovePaths checks the number, size, encoding and uniqueness of the paths; their
// syntax is the JSONPath parser's to judge.
func validateRemovePaths(paths []string, fldPath *field.Path) field.ErrorList {
	if len(paths) == 0 {
		return field.ErrorList{field.Required(fldPath, "name at least one field to remove")}
	}
	if len(paths) > MaxRemovePaths {
		return field.ErrorList{field.TooMany(fldPath, len(paths), MaxRemovePaths)}
	}
	var allErrs field.ErrorList
	seen := make(map[string]bool, len(paths))
	for i, p := range paths {
		switch {
		case len(p) > MaxRemovePathLength:
			allErrs = append(allErrs, field.TooLong(fldPath.Index(i), "", MaxRemovePathLength))
		case !utf8.ValidString(p):
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), p, "must be valid UTF-8"))
		case seen[p]:
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), p))
		}
		seen[p] = true
	}
	return allErrs
}
