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

// Package validation checks Templates before they are stored, reporting every problem at once
// with its field path.
package validation

import (
	"encoding/json"
	"regexp"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

var parameterNameRegexp = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidateTemplate validates a Template on create.
func ValidateTemplate(t *templates.Template) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&t.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateTemplateBody(t)...)
	return allErrs
}

// ValidateTemplateUpdate validates a Template on update.
func ValidateTemplateUpdate(t, old *templates.Template) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&t.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateTemplateBody(t)...)
	return allErrs
}

// ValidateTemplateBody validates everything of a Template but its metadata; the processing
// endpoint uses it for templates that are never stored.
func ValidateTemplateBody(t *templates.Template) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, ValidateParameters(t.Parameters, field.NewPath("parameters"))...)
	allErrs = append(allErrs, validateObjects(t.Objects, field.NewPath("objects"))...)
	allErrs = append(allErrs, validateLiteralLabels(t.ObjectLabels, field.NewPath("objectLabels"))...)
	allErrs = append(allErrs, validateTransformerImports(t.TransformersFrom, field.NewPath("transformersFrom"))...)
	for i, ref := range t.TransformerOrder {
		if ref.Name == "" {
			allErrs = append(allErrs, field.Required(field.NewPath("transformerOrder").Index(i).Child("name"), ""))
		}
	}
	return allErrs
}

// ValidateParameters checks names, uniqueness, types, defaults and generators.
func ValidateParameters(params []templates.Parameter, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i := range params {
		p := &params[i]
		idxPath := fldPath.Index(i)
		switch {
		case p.Name == "":
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		case !parameterNameRegexp.MatchString(p.Name):
			allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), p.Name, "must match "+parameterNameRegexp.String()))
		case seen.Has(p.Name):
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), p.Name))
		}
		seen.Insert(p.Name)

		typeOK := true
		switch p.Type {
		case "", templates.ParameterTypeString, templates.ParameterTypeInt, templates.ParameterTypeBool, templates.ParameterTypeBase64:
		default:
			typeOK = false
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("type"), p.Type, templates.SupportedParameterTypes))
		}
		if typeOK {
			if err := p.Type.CheckValue(p.Value); err != nil {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("value"), p.Value, err.Error()))
			}
		}
		allErrs = append(allErrs, validateGenerator(p, idxPath)...)
	}
	return allErrs
}

func validateGenerator(p *templates.Parameter, idxPath *field.Path) field.ErrorList {
	switch p.Generate {
	case "":
		return nil
	case templates.GeneratorExpression:
	default:
		return field.ErrorList{field.NotSupported(idxPath.Child("generate"), p.Generate, []string{templates.GeneratorExpression})}
	}
	if p.From == "" {
		return field.ErrorList{field.Required(idxPath.Child("from"), "the expression generator needs an expression")}
	}
	if err := checkGeneratorExpression(p.From); err != nil {
		return field.ErrorList{field.Invalid(idxPath.Child("from"), p.From, err.Error())}
	}
	return nil
}

// objectHeader is the part of an embedded object that must be present to process it.
type objectHeader struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func validateObjects(objects []runtime.RawExtension, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i := range objects {
		idxPath := fldPath.Index(i)
		var header objectHeader
		if err := json.Unmarshal(objects[i].Raw, &header); err != nil {
			allErrs = append(allErrs, field.Invalid(idxPath, "", "must be a JSON object with apiVersion and kind: "+err.Error()))
			continue
		}
		if header.APIVersion == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("apiVersion"), ""))
		}
		if header.Kind == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("kind"), ""))
		}
	}
	return allErrs
}

// validateLiteralLabels checks the labels that hold no parameter reference; the others can only
// be checked once substituted.
func validateLiteralLabels(labels map[string]string, fldPath *field.Path) field.ErrorList {
	literal := map[string]string{}
	for k, v := range labels {
		if !containsReference(k) && !containsReference(v) {
			literal[k] = v
		}
	}
	return metav1validation.ValidateLabels(literal, fldPath)
}

func validateTransformerImports(imports []templates.TransformerImport, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, imp := range imports {
		idxPath := fldPath.Index(i)
		if imp.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(imp.Name, false) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), imp.Name, msg))
			}
		}
		switch imp.ImportMode {
		case templates.ImportModePrepend, templates.ImportModeAppend:
		default:
			allErrs = append(allErrs, field.NotSupported(idxPath.Child("importMode"), imp.ImportMode,
				[]string{string(templates.ImportModePrepend), string(templates.ImportModeAppend)}))
		}
	}
	return allErrs
}
