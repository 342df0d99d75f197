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

package remove

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Rule is a CustomTransform as processing applies it: the admin's removals for every
// object of one API group and resource (or kind).
type Rule struct {
	// Name is the CustomTransform's name; rules apply in name order.
	Name string
	// APIGroup is the object's group, "" for core. It is always compared.
	APIGroup string
	// Resource is the lowercase plural resource ("deployments"); it binds through the
	// kindToResource mapping given to ApplyRules.
	Resource string
	// Kind binds by the object's kind directly ("Deployment"), needing no mapping.
	Kind string
	// Paths are the removals, parsed by ParsePaths.
	Paths []Path
}

// binds reports whether the rule applies to an object of group and kind; resource maps the
// kind to its resource, and is only called when needed.
func (r *Rule) binds(group, kind string, resource func() (string, bool)) bool {
	if r.APIGroup != group {
		return false
	}
	if r.Kind != "" && r.Kind == kind {
		return true
	}
	if r.Resource != "" {
		res, ok := resource()
		return ok && res == r.Resource
	}
	return false
}

// InOrder returns the rules in the order ApplyRules applies them: by name, so that the result
// never depends on the order a lister returns. Applying each in turn is applying them all.
func InOrder(rules []Rule) []Rule {
	sorted := slices.Clone(rules)
	slices.SortStableFunc(sorted, func(a, b Rule) int { return cmp.Compare(a.Name, b.Name) })
	return sorted
}

// ApplyRules applies every rule that binds to each object, rules in name order (ties keep
// their given order), removing their paths in place. A rule binds when its APIGroup equals
// the object's group and either its Kind equals the object's kind or its Resource equals the
// resource kindToResource gives for the object's group and kind. As in KubeStellar, the
// version is ignored and matching is exact and case-sensitive. kindToResource may be nil, for
// DefaultKindToResource; a server with discovery passes its REST mapper instead.
func ApplyRules(objects []map[string]any, rules []Rule, kindToResource func(group, kind string) (string, bool)) {
	if len(rules) == 0 {
		return
	}
	if kindToResource == nil {
		kindToResource = DefaultKindToResource
	}
	sorted := InOrder(rules)
	for _, obj := range objects {
		group, kind := groupKindOf(obj)
		var (
			resource   string
			resolved   bool
			resolvedOK bool
		)
		resourceOf := func() (string, bool) {
			if !resolved {
				resource, resolvedOK = kindToResource(group, kind)
				resolved = true
			}
			return resource, resolvedOK
		}
		for i := range sorted {
			if !sorted[i].binds(group, kind, resourceOf) {
				continue
			}
			for _, p := range sorted[i].Paths {
				p.RemoveFrom(obj)
			}
		}
	}
}

// groupKindOf returns an object's API group ("" for core, the version dropped) and kind.
func groupKindOf(obj map[string]any) (group, kind string) {
	apiVersion, _ := obj["apiVersion"].(string)
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		group = apiVersion[:i]
	}
	kind, _ = obj["kind"].(string)
	return group, kind
}

// ParsePaths parses JSONPath removal paths. It returns the paths that parse, in order,
// and an error at fldPath[i], with the byte offset of the problem, for each that does not. It
// validates RemoveTransformer's paths and, through RuleFor, a CustomTransform's spec.remove.
func ParsePaths(paths []string, fldPath *field.Path) ([]Path, field.ErrorList) {
	var errs field.ErrorList
	out := make([]Path, 0, len(paths))
	for i, s := range paths {
		p, err := parsePath(s)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Index(i), s, err.Error()))
			continue
		}
		out = append(out, p)
	}
	return out, errs
}

// RuleFor is the one way from a CustomTransform to its removal rule: the server builds its
// rules with it and checks each CustomTransform written with it, and stencil process --local
// does the same with the files it is given, so that both accept the same CustomTransforms.
// Callers add the API's own checks (validation.ValidateCustomTransform); RuleFor judges what
// only the removal engine can, the paths, with errors at spec.remove[i]. The rule holds the
// paths that parse, so that a server can still apply the valid removals of an object stored
// before validation got stricter, as KubeStellar does.
func RuleFor(ct *templates.CustomTransform) (Rule, field.ErrorList) {
	paths, errs := ParsePaths(ct.Spec.Remove, field.NewPath("spec", "remove"))
	return Rule{
		Name:     ct.Name,
		APIGroup: ct.Spec.APIGroup,
		Resource: ct.Spec.Resource,
		Kind:     ct.Spec.Kind,
		Paths:    paths,
	}, errs
}
