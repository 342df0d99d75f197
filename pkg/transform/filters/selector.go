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

package filters

import (
	"regexp"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
)

// Selector is Kustomize's patch target. Every given field must match. Group, version, kind,
// name and namespace are regular expressions anchored at both ends (`^(?:p)$`), so `app-1`
// does not match `app-10`; the selectors use label-selector syntax.
type Selector struct {
	// Group, Version, Kind, Name and Namespace are anchored regular expressions.
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// LabelSelector selects by labels ("env=dev,tier in (web)").
	LabelSelector string `json:"labelSelector,omitempty"`
	// AnnotationSelector selects by annotations, in label-selector syntax.
	AnnotationSelector string `json:"annotationSelector,omitempty"`
}

// CompiledSelector is a compiled Selector; nil fields match anything.
type CompiledSelector struct {
	group, version, kind, name, namespace *regexp.Regexp
	labels, annotations                   labels.Selector
}

// CompileSelector compiles s, reporting bad regexes and selectors under fldPath.
func CompileSelector(s *Selector, fldPath *field.Path) (*CompiledSelector, field.ErrorList) {
	var errs field.ErrorList
	re := func(p, name string) *regexp.Regexp {
		if p == "" {
			return nil
		}
		r, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Child(name), p, "invalid regular expression: "+err.Error()))
		}
		return r
	}
	sel := &CompiledSelector{
		group:     re(s.Group, "group"),
		version:   re(s.Version, "version"),
		kind:      re(s.Kind, "kind"),
		name:      re(s.Name, "name"),
		namespace: re(s.Namespace, "namespace"),
	}
	ls := func(text, name string) labels.Selector {
		if text == "" {
			return nil
		}
		parsed, err := labels.Parse(text)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Child(name), text, err.Error()))
		}
		return parsed
	}
	sel.labels = ls(s.LabelSelector, "labelSelector")
	sel.annotations = ls(s.AnnotationSelector, "annotationSelector")
	return sel, errs
}

// Matches reports whether obj is selected. Name and namespace also match the object's
// original ones, before any rename in this pipeline, as Kustomize matches original IDs.
func (s *CompiledSelector) Matches(ctx *transform.Context, obj transform.Object) bool {
	id := transform.GVKOf(obj)
	if (s.group != nil && !s.group.MatchString(id.Group)) ||
		(s.version != nil && !s.version.MatchString(id.Version)) ||
		(s.kind != nil && !s.kind.MatchString(id.Kind)) {
		return false
	}
	if s.name != nil || s.namespace != nil {
		origName, origNS := ctx.OriginalName(obj)
		if s.name != nil && !s.name.MatchString(transform.NameOf(obj)) && !s.name.MatchString(origName) {
			return false
		}
		if s.namespace != nil {
			// Kustomize matches the effective namespace: "default" for a namespaced object
			// without one, "" for a cluster-scoped object.
			cur, orig := transform.NamespaceOf(obj), origNS
			if !IsClusterScoped(id) {
				cur, orig = EffectiveNamespace(cur), EffectiveNamespace(orig)
			}
			if !s.namespace.MatchString(cur) && !s.namespace.MatchString(orig) {
				return false
			}
		}
	}
	if s.labels != nil && !s.labels.Matches(anyLabels(transform.NestedMap(obj, "metadata", "labels"))) {
		return false
	}
	if s.annotations != nil && !s.annotations.Matches(anyLabels(transform.NestedMap(obj, "metadata", "annotations"))) {
		return false
	}
	return true
}

// anyLabels lets a label selector read a decoded labels map without copying it.
type anyLabels map[string]any

func (l anyLabels) Has(k string) bool { _, ok := l[k]; return ok }

func (l anyLabels) Get(k string) string { s, _ := l[k].(string); return s }

func (l anyLabels) Lookup(k string) (string, bool) {
	v, ok := l[k]
	s, _ := v.(string)
	return s, ok
}
