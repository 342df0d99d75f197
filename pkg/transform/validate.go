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

package transform

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// ValidateTransformers checks what can be known about a Template's transformers when it is
// created or updated: every config of its own list (kind, fields, regexes, selectors, patches),
// its overrides and its order. Fields whose values hold parameter references are only checked
// after substitution, by Compile. Imports are resolved at processing time, since the imported
// Templates may change independently.
//
// A plugin config is checked under plugins (a namespace's policy): a provider it does not
// enable is a 422 naming it.
func (r *Registry) ValidateTransformers(plugins Plugins, t *templates.Template) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	basePath := field.NewPath("transformers")
	for i, raw := range t.Transformers {
		path := basePath.Index(i)
		c, err := newConfig(raw, path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !HasParamRef(c.Name) {
			errs = append(errs, validateName(c.Name, path.Child("metadata", "name"))...)
		}
		if names[c.Name] {
			errs = append(errs, field.Duplicate(path.Child("metadata", "name"), c.Name))
		}
		names[c.Name] = true
		h, factory, ferrs := r.factory(plugins, c.Raw, path, false)
		if factory == nil {
			if !HasParamRef(h.APIVersion) && !HasParamRef(h.Kind) {
				errs = append(errs, ferrs...)
			}
			continue
		}
		_, cerrs := factory(c.Raw, path)
		errs = append(errs, dropParamRefErrors(cerrs, c.Raw, path)...)
	}
	for i, raw := range t.TransformerOverrides {
		path := field.NewPath("transformerOverrides").Index(i)
		patch, err := jsonbytes.DecodeObject(raw.Raw)
		if err != nil {
			errs = append(errs, field.Invalid(path, string(raw.Raw), "an override must be an object: "+err.Error()))
			continue
		}
		h, ferr := defaultHeader(patch, path)
		if ferr != nil {
			errs = append(errs, ferr)
			continue
		}
		// An override of a plugin's config is checked with the config it patches.
		if f, why := r.Factory(h.APIVersion, h.Kind); f == nil && !IsPluginConfig(h) {
			errs = append(errs, r.kindError(path, h.APIVersion, h.Kind, why))
		}
	}
	for i, imp := range t.TransformersFrom {
		if imp.Name != "" && imp.Name == t.Name {
			errs = append(errs, field.Invalid(field.NewPath("transformersFrom").Index(i).Child("name"), imp.Name,
				"transformer import cycle: a template cannot import itself"))
		}
	}
	errs = append(errs, validateOrder(t, names)...)
	return errs
}

// validateName checks a transformer name: a DNS subdomain, as the kebab-case defaults are.
func validateName(name string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// validateOrder checks transformerOrder; without imports the whole list is known, so it
// must then name every transformer and only those.
func validateOrder(t *templates.Template, names map[string]bool) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("transformerOrder")
	seen := map[string]bool{}
	for i, ref := range t.TransformerOrder {
		p := path.Index(i).Child("name")
		switch {
		case ref.Name == "":
			errs = append(errs, field.Required(p, ""))
		case seen[ref.Name]:
			errs = append(errs, field.Duplicate(p, ref.Name))
		case len(t.TransformersFrom) == 0 && !names[ref.Name] && !HasParamRef(ref.Name):
			errs = append(errs, field.NotFound(p, ref.Name))
		}
		seen[ref.Name] = true
	}
	if len(t.TransformerOrder) > 0 && len(t.TransformersFrom) == 0 {
		var missing []string
		for n := range names {
			if !seen[n] {
				missing = append(missing, n)
			}
		}
		slices.Sort(missing)
		for _, n := range missing {
			errs = append(errs, field.Invalid(path, n, "transformerOrder must list every transformer; missing "+n))
		}
	}
	return errs
}
