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

package builtin

import (
	"fmt"
	"slices"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// LabelConfig is the config of LabelTransformer. By default it behaves as Kustomize's
// commonLabels: metadata labels, pod-template labels and selectors.
type LabelConfig struct {
	transform.ConfigMeta
	// Labels are the labels to set.
	Labels map[string]string `json:"labels,omitempty"`
	// IncludeSelectors (default true) also sets selectors and pod templates, like commonLabels.
	// Selectors of Deployments and the like are immutable, so adding a label to them breaks
	// updates of deployed objects (kustomize#1009); false leaves them alone.
	IncludeSelectors *bool `json:"includeSelectors,omitempty"`
	// IncludeTemplates (default true) sets pod-template labels when selectors are excluded.
	IncludeTemplates *bool `json:"includeTemplates,omitempty"`
	// FieldSpecs, when given, replace the default fields.
	FieldSpecs []filters.FieldSpec `json:"fieldSpecs,omitempty"`
}

// mapSetter sets fixed keys in the maps its field specs name.
type mapSetter struct {
	what   string // "labels" or "annotations", for messages
	values map[string]string
	keys   []string // sorted, so that errors are deterministic
	specs  filters.SpecSet
}

func newLabelTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c LabelConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	errs := metav1validation.ValidateLabels(c.Labels, fldPath.Child("labels"))
	specs, specErrs := filters.CompileFieldSpecs(c.FieldSpecs, fldPath.Child("fieldSpecs"))
	errs = append(errs, specErrs...)
	defaults := defaultCommonLabels
	if c.IncludeSelectors != nil && !*c.IncludeSelectors {
		defaults = defaultMetadataLabels
		if c.IncludeTemplates == nil || *c.IncludeTemplates {
			defaults = defaultTemplateLabels
		}
	}
	return newMapSetter("labels", c.Labels, filters.WithDefaults(defaults, specs, c.FieldSpecs != nil)), errs
}

func newMapSetter(what string, values map[string]string, specs filters.SpecSet) *mapSetter {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return &mapSetter{what: what, values: values, keys: keys, specs: specs}
}

// Transform sets the keys in every field the specs name, creating maps where they say so.
func (t *mapSetter) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	if len(t.keys) == 0 {
		return objects, nil
	}
	set := func(parent map[string]any, key string) error {
		m, ok := parent[key].(map[string]any)
		if !ok {
			if parent[key] != nil {
				return fmt.Errorf("%s must be an object", t.what)
			}
			m = make(map[string]any, len(t.keys))
			parent[key] = m
		}
		// The values are shared, not copied, but every copy of them is written out: what the
		// output gains is spent from the budget.
		grown := 0
		for _, k := range t.keys {
			grown += len(t.values[k]) + len(`""`)
			if old, ok := m[k]; ok {
				grown -= jsonbytes.EncodedSize(old, 0)
			} else {
				grown += len(k) + len(`"":,`)
			}
			m[k] = t.values[k]
		}
		return ctx.Spend(grown)
	}
	for _, obj := range objects {
		if err := ctx.Spend(0); err != nil {
			return nil, err
		}
		id := transform.GVKOf(obj)
		for _, s := range t.specs.ForKind(id.Kind) {
			if s.Matches(id) {
				if err := s.Apply(obj, set); err != nil {
					return nil, err
				}
			}
		}
	}
	return objects, nil
}
