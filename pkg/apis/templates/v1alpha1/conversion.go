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

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Convert_templates_Template_To_v1alpha1_Template writes the OpenShift mark as the dialect, left
// empty for Stencil's so that a Template of our own dialect reads as it always did.
func Convert_templates_Template_To_v1alpha1_Template(in *templates.Template, out *Template, s conversion.Scope) error {
	if err := autoConvert_templates_Template_To_v1alpha1_Template(in, out, s); err != nil {
		return err
	}
	out.Dialect = ""
	if in.OpenShift {
		out.Dialect = DialectOpenShift
	}
	return nil
}

// Convert_v1alpha1_Template_To_templates_Template refuses numbers that Kubernetes cannot read
// in objects and transformer configs, and maps beyond templates.MaxEntries. They must be
// refused while the body is decoded: the API server tracks managed fields before any
// validation runs, and structured-merge-diff panics on such a number inside a RawExtension
// and takes quadratic time on such a map. A custom resource with such a number is refused at
// the same step, with a 400. A decoder that read the objects' numbers itself says so in s
// (templates.ObjectNumbersRead).
func Convert_v1alpha1_Template_To_templates_Template(in *Template, out *templates.Template, s conversion.Scope) error {
	errs := templates.EntryErrors(append(templates.MetadataEntries(&in.ObjectMeta),
		templates.EntryCount{Path: "parameters", N: len(in.Parameters)}, templates.EntryCount{Path: "objectLabels", N: len(in.ObjectLabels)},
		templates.EntryCount{Path: "objects", N: len(in.Objects), Max: templates.MaxObjects},
		templates.EntryCount{Path: "generators", N: len(in.Generators), Max: templates.MaxObjects},
		templates.EntryCount{Path: "transformers", N: len(in.Transformers), Max: templates.MaxObjects},
		templates.EntryCount{Path: "transformerOverrides", N: len(in.TransformerOverrides), Max: templates.MaxObjects})...)
	objects := templates.RawList{Name: "objects", Raws: in.Objects}
	if templates.ObjectNumbersChecked(s) {
		objects.Raws = nil // the decoder read their numbers (templates.ObjectNumbersRead)
	}
	errs = append(errs, templates.RawNumberErrors(objects,
		templates.RawList{Name: "generators", Raws: in.Generators}, templates.RawList{Name: "transformers", Raws: in.Transformers},
		templates.RawList{Name: "transformerOverrides", Raws: in.TransformerOverrides})...)
	switch in.Dialect {
	case "", DialectStencil, DialectOpenShift:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("dialect"), in.Dialect, []Dialect{DialectStencil, DialectOpenShift}))
	}
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	if err := autoConvert_v1alpha1_Template_To_templates_Template(in, out, s); err != nil {
		return err
	}
	out.OpenShift = in.Dialect == DialectOpenShift
	return nil
}

// Convert_v1alpha1_TemplateParameters_To_templates_TemplateParameters refuses maps beyond
// templates.MaxEntries while the body is decoded, as the Template's conversion does; the
// destinations' properties count together.
func Convert_v1alpha1_TemplateParameters_To_templates_TemplateParameters(in *TemplateParameters, out *templates.TemplateParameters, s conversion.Scope) error {
	properties := 0
	for _, d := range in.Destinations {
		properties += len(d.Properties)
	}
	errs := templates.EntryErrors(append(templates.MetadataEntries(&in.ObjectMeta),
		templates.EntryCount{Path: "parameters", N: len(in.Parameters)}, templates.EntryCount{Path: "labels", N: len(in.Labels)},
		templates.EntryCount{Path: "properties", N: len(in.Properties)}, templates.EntryCount{Path: "destinations", N: len(in.Destinations)},
		templates.EntryCount{Path: "destinations[*].properties", N: properties})...)
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	return autoConvert_v1alpha1_TemplateParameters_To_templates_TemplateParameters(in, out, s)
}

// Convert_v1alpha1_CustomTransform_To_templates_CustomTransform refuses metadata maps beyond
// templates.MaxEntries while the body is decoded, as the Template's conversion does.
func Convert_v1alpha1_CustomTransform_To_templates_CustomTransform(in *CustomTransform, out *templates.CustomTransform, s conversion.Scope) error {
	if errs := templates.EntryErrors(templates.MetadataEntries(&in.ObjectMeta)...); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return autoConvert_v1alpha1_CustomTransform_To_templates_CustomTransform(in, out, s)
}

// Convert_v1alpha1_TemplateInstance_To_templates_TemplateInstance refuses maps beyond
// templates.MaxEntries and numbers Kubernetes cannot read in an inline template while the body
// is decoded, as the Template's conversion does.
func Convert_v1alpha1_TemplateInstance_To_templates_TemplateInstance(in *TemplateInstance, out *templates.TemplateInstance, s conversion.Scope) error {
	errs := templates.EntryErrors(append(templates.MetadataEntries(&in.ObjectMeta),
		templates.EntryCount{Path: "spec.parameters", N: len(in.Spec.Parameters)}, templates.EntryCount{Path: "spec.labels", N: len(in.Spec.Labels)},
		templates.EntryCount{Path: "spec.properties", N: len(in.Spec.Properties)})...)
	if in.Spec.Template != nil {
		errs = append(errs, templates.NumberErrors(in.Spec.Template.Raw, field.NewPath("spec", "template"))...)
	}
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	return autoConvert_v1alpha1_TemplateInstance_To_templates_TemplateInstance(in, out, s)
}
