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
	"fmt"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// maxHelmReleaseNameLength is Helm's own bound on release names.
const maxHelmReleaseNameLength = 53

// maxAdoptionManagers bounds the further field managers an adoption names.
const maxAdoptionManagers = 32

// stencilFieldManager is the controller's field manager: an adoption never "takes it over".
const stencilFieldManager = "stencil.dev/templateinstance"

// ApplySetParent reads an ApplySet parent as kubectl's --applyset flag names it: NAME (a
// Secret), secrets/NAME or configmaps/NAME. It returns the kind and name.
func ApplySetParent(s string) (kind, name string, err error) {
	resource, name, found := strings.Cut(s, "/")
	if !found {
		resource, name = "secrets", s
	}
	switch resource {
	case "secrets", "secret":
		kind = "Secret"
	case "configmaps", "configmap":
		kind = "ConfigMap"
	default:
		return "", "", fmt.Errorf("the parent must be a Secret or a ConfigMap of the namespace (NAME, secrets/NAME or configmaps/NAME), not %q", resource)
	}
	if msgs := apimachineryvalidation.NameIsDNSSubdomain(name, false); len(msgs) > 0 {
		return "", "", fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	return kind, name, nil
}

// validateAdoption checks spec.adoption: exactly one source, each well formed.
func validateAdoption(a *templates.TemplateInstanceAdoption, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	sources := 0
	if a.HelmRelease != "" {
		sources++
		p := path.Child("helmRelease")
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(a.HelmRelease, false) {
			allErrs = append(allErrs, field.Invalid(p, a.HelmRelease, msg))
		}
		if len(a.HelmRelease) > maxHelmReleaseNameLength {
			allErrs = append(allErrs, field.TooLong(p, a.HelmRelease, maxHelmReleaseNameLength))
		}
	}
	if a.ApplySet != "" {
		sources++
		if _, _, err := ApplySetParent(a.ApplySet); err != nil {
			allErrs = append(allErrs, field.Invalid(path.Child("applySet"), a.ApplySet, err.Error()))
		}
	}
	if a.Selector != nil {
		sources++
		p := path.Child("selector")
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(a.Selector, metav1validation.LabelSelectorValidationOptions{}, p)...)
		if len(a.Selector.MatchLabels)+len(a.Selector.MatchExpressions) == 0 {
			allErrs = append(allErrs, field.Invalid(p, "", "must select something: an empty selector would take over every object of the namespace"))
		}
	}
	switch {
	case sources == 0:
		allErrs = append(allErrs, field.Required(path, "exactly one of helmRelease, applySet and selector is required"))
	case sources > 1:
		allErrs = append(allErrs, field.Forbidden(path, "exactly one of helmRelease, applySet and selector may be set"))
	}
	if len(a.Managers) > maxAdoptionManagers {
		allErrs = append(allErrs, field.TooMany(path.Child("managers"), len(a.Managers), maxAdoptionManagers))
	}
	for i, m := range a.Managers {
		p := path.Child("managers").Index(i)
		switch {
		case strings.TrimSpace(m) == "":
			allErrs = append(allErrs, field.Invalid(p, m, "must name a field manager"))
		case m == stencilFieldManager:
			allErrs = append(allErrs, field.Invalid(p, m, "is the instance's own field manager"))
		case len(m) > 128:
			allErrs = append(allErrs, field.TooLong(p, m, 128))
		}
	}
	return allErrs
}

// validateAdoptionUpdate keeps spec.adoption as created: what an instance takes over is
// decided once.
func validateAdoptionUpdate(spec, old *templates.TemplateInstanceSpec, path *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(spec.Adoption, old.Adoption) {
		return nil
	}
	return field.ErrorList{field.Forbidden(path.Child("adoption"), "may not change: it is set when the instance is created")}
}
