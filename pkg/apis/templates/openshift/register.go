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
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"stencil.dev/stencil/pkg/apis/templates"
)

// SchemeGroupVersion is OpenShift's template API version.
var SchemeGroupVersion = schema.GroupVersion{Group: "template.openshift.io", Version: "v1"}

// LegacyGroupVersion is the "apiVersion: v1" that oc still accepts for Templates.
var LegacyGroupVersion = schema.GroupVersion{Version: "v1"}

// AddToScheme registers the OpenShift Template under both spellings, with its conversion to the
// internal Template, so that the processing endpoint decodes either body.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Template{})
	scheme.AddKnownTypeWithName(LegacyGroupVersion.WithKind("Template"), &Template{})
	return scheme.AddConversionFunc((*Template)(nil), (*templates.Template)(nil), func(a, b interface{}, s conversion.Scope) error {
		// As for our Templates (see v1alpha1's conversion): a number structured-merge-diff
		// cannot read, and maps too large for it, must be refused while the body is decoded.
		in := a.(*Template)
		errs := templates.EntryErrors(append(templates.MetadataEntries(&in.ObjectMeta),
			templates.EntryCount{Path: "parameters", N: len(in.Parameters)}, templates.EntryCount{Path: "labels", N: len(in.Labels)})...)
		if errs = append(errs, templates.RawNumberErrors(templates.RawList{Name: "objects", Raws: in.Objects})...); len(errs) > 0 {
			return errs.ToAggregate()
		}
		ToInternal(in, b.(*templates.Template))
		return nil
	})
}

// ToInternal converts an OpenShift Template into the internal Template, marked for OpenShift's
// processing rules.
func ToInternal(in *Template, out *templates.Template) {
	*out = templates.Template{
		TypeMeta:     in.TypeMeta,
		ObjectMeta:   in.ObjectMeta,
		Message:      in.Message,
		Objects:      in.Objects,
		ObjectLabels: in.Labels,
		OpenShift:    true,
	}
	if len(in.Parameters) > 0 {
		out.Parameters = make([]templates.Parameter, len(in.Parameters))
	}
	for i, p := range in.Parameters {
		out.Parameters[i] = templates.Parameter{
			Name:        p.Name,
			DisplayName: p.DisplayName,
			Description: p.Description,
			Value:       p.Value,
			Required:    p.Required,
			Generate:    p.Generate,
			From:        p.From,
		}
	}
}
