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

package openshift

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// GroupName is OpenShift's template API group.
const GroupName = "template.openshift.io"

// SchemeGroupVersion is OpenShift's template API version.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// InternalGroupVersion is the group's internal version, whose Template is ours: one object is
// served by both groups, as Kubernetes serves Events in core and events.k8s.io.
var InternalGroupVersion = schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}

// LegacyGroupVersion is the "apiVersion: v1" that oc still accepts for Templates.
var LegacyGroupVersion = schema.GroupVersion{Version: "v1"}

// Resource returns the group-qualified resource.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// Kind returns the group-qualified kind.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

// AddToScheme registers the OpenShift Template under both spellings, the internal Template as
// the group's internal version, and the conversions between them.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Template{}, &TemplateList{}, &TemplateInstance{}, &TemplateInstanceList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	scheme.AddKnownTypeWithName(LegacyGroupVersion.WithKind("Template"), &Template{})
	scheme.AddKnownTypes(InternalGroupVersion, &templates.Template{}, &templates.TemplateList{},
		&templates.TemplateInstance{}, &templates.TemplateInstanceList{})
	for _, f := range []struct {
		a, b interface{}
		fn   conversion.ConversionFunc
	}{
		{(*Template)(nil), (*templates.Template)(nil), func(a, b interface{}, s conversion.Scope) error {
			return decodeTemplate(a.(*Template), b.(*templates.Template), templates.ObjectNumbersChecked(s))
		}},
		{(*templates.Template)(nil), (*Template)(nil), func(a, b interface{}, _ conversion.Scope) error {
			return FromInternal(a.(*templates.Template), b.(*Template))
		}},
		{(*TemplateList)(nil), (*templates.TemplateList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*TemplateList), b.(*templates.TemplateList)
			out.ListMeta, out.Items = in.ListMeta, nil
			if in.Items != nil {
				out.Items = make([]templates.Template, len(in.Items))
			}
			for i := range in.Items {
				if err := decodeTemplate(&in.Items[i], &out.Items[i], false); err != nil {
					return err
				}
			}
			return nil
		}},
		{(*templates.TemplateList)(nil), (*TemplateList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*templates.TemplateList), b.(*TemplateList)
			out.ListMeta, out.Items = in.ListMeta, nil
			if in.Items != nil {
				out.Items = make([]Template, len(in.Items))
			}
			for i := range in.Items {
				if err := FromInternal(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
				out.Items[i].TypeMeta = metav1.TypeMeta{}
			}
			return nil
		}},
		{(*TemplateInstance)(nil), (*templates.TemplateInstance)(nil), func(a, b interface{}, _ conversion.Scope) error {
			return decodeTemplateInstance(a.(*TemplateInstance), b.(*templates.TemplateInstance))
		}},
		{(*templates.TemplateInstance)(nil), (*TemplateInstance)(nil), func(a, b interface{}, _ conversion.Scope) error {
			return InstanceFromInternal(a.(*templates.TemplateInstance), b.(*TemplateInstance))
		}},
		{(*TemplateInstanceList)(nil), (*templates.TemplateInstanceList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*TemplateInstanceList), b.(*templates.TemplateInstanceList)
			out.ListMeta, out.Items = in.ListMeta, nil
			if in.Items != nil {
				out.Items = make([]templates.TemplateInstance, len(in.Items))
			}
			for i := range in.Items {
				if err := decodeTemplateInstance(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
			}
			return nil
		}},
		{(*templates.TemplateInstanceList)(nil), (*TemplateInstanceList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*templates.TemplateInstanceList), b.(*TemplateInstanceList)
			out.ListMeta, out.Items = in.ListMeta, nil
			if in.Items != nil {
				out.Items = make([]TemplateInstance, len(in.Items))
			}
			for i := range in.Items {
				if err := InstanceFromInternal(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
				out.Items[i].TypeMeta = metav1.TypeMeta{}
			}
			return nil
		}},
	} {
		if err := scheme.AddConversionFunc(f.a, f.b, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// decodeTemplate is the conversion of a body being decoded. As for our Templates (see
// v1alpha1's conversion), a number structured-merge-diff cannot read and maps too large for it
// must be refused while the body is decoded; numbersRead says the decoder already read the
// objects' numbers (templates.ObjectNumbersRead).
func decodeTemplate(in *Template, out *templates.Template, numbersRead bool) error {
	if err := decodeErrors(in, len(in.Parameters), numbersRead); err != nil {
		return err
	}
	return ToInternal(in, out)
}

// DecodeWithParameters is the scheme's conversion of a decoded body (decodeTemplate) for a
// decoder that read the Template's parameters straight into the internal type, params (see
// ToInternalWithParameters), and not into in.Parameters: the API server's one-scan codec
// calls it where it would call the scheme's Convert, which would copy them.
func DecodeWithParameters(in *Template, params []templates.Parameter, out *templates.Template, numbersRead bool) error {
	if err := decodeErrors(in, len(params), numbersRead); err != nil {
		return err
	}
	return ToInternalWithParameters(in, params, out)
}

// decodeErrors are what the conversion of a decoded body refuses in in, which has
// parameters parameters.
func decodeErrors(in *Template, parameters int, numbersRead bool) error {
	errs := templates.EntryErrors(append(templates.MetadataEntries(&in.ObjectMeta),
		templates.EntryCount{Path: "parameters", N: parameters}, templates.EntryCount{Path: "labels", N: len(in.Labels)},
		templates.EntryCount{Path: "objects", N: len(in.Objects), Max: templates.MaxObjects})...)
	if !numbersRead {
		errs = append(errs, templates.RawNumberErrors(templates.RawList{Name: "objects", Raws: in.Objects})...)
	}
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	return nil
}

// decodeTemplateInstance is the conversion of a body being decoded; it refuses what v1alpha1's
// conversion of a TemplateInstance refuses: maps beyond templates.MaxEntries, here also those
// of the typed spec.template, and numbers Kubernetes cannot read in the inline template.
func decodeTemplateInstance(in *TemplateInstance, out *templates.TemplateInstance) error {
	t := &in.Spec.Template
	counts := append(templates.MetadataEntries(&in.ObjectMeta),
		templates.EntryCount{Path: "spec.template.metadata.labels", N: len(t.ObjectMeta.Labels)},
		templates.EntryCount{Path: "spec.template.metadata.annotations", N: len(t.Annotations)},
		templates.EntryCount{Path: "spec.template.parameters", N: len(t.Parameters)},
		templates.EntryCount{Path: "spec.template.labels", N: len(t.Labels)},
		templates.EntryCount{Path: "spec.template.objects", N: len(t.Objects), Max: templates.MaxObjects})
	if r := in.Spec.Requester; r != nil {
		counts = append(counts, templates.EntryCount{Path: "spec.requester.extra", N: len(r.Extra)})
	}
	if errs := templates.EntryErrors(counts...); len(errs) > 0 {
		return errs.ToAggregate()
	}
	if err := InstanceToInternal(in, out); err != nil {
		return err
	}
	errs := templates.EntryErrors(templates.EntryCount{Path: "spec.parameters", N: len(out.Spec.Parameters)},
		templates.EntryCount{Path: "spec.labels", N: len(out.Spec.Labels)}, templates.EntryCount{Path: "spec.properties", N: len(out.Spec.Properties)})
	if out.Spec.Template != nil {
		errs = append(errs, templates.NumberErrors(out.Spec.Template.Raw, field.NewPath("spec", "template"))...)
	}
	return errs.ToAggregate()
}
