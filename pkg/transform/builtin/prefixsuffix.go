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

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
)

// PrefixSuffixConfig is the config of PrefixSuffixTransformer (Kustomize's namePrefix and
// nameSuffix).
type PrefixSuffixConfig struct {
	transform.ConfigMeta
	// Prefix and Suffix are added to the names.
	Prefix string `json:"prefix,omitempty"`
	Suffix string `json:"suffix,omitempty"`
	// FieldSpecs replace the default, metadata/name of every object.
	FieldSpecs []filters.FieldSpec `json:"fieldSpecs,omitempty"`
}

type prefixSuffix struct {
	prefix, suffix string
	specs          filters.SpecSet
}

func newPrefixSuffix(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var c PrefixSuffixConfig
	if errs := transform.DecodeConfig(config, &c, fldPath); len(errs) > 0 {
		return nil, errs
	}
	specs, errs := filters.CompileFieldSpecs(c.FieldSpecs, fldPath.Child("fieldSpecs"))
	return &prefixSuffix{prefix: c.Prefix, suffix: c.Suffix, specs: filters.WithDefaults(defaultNamePrefixSuffix, specs, c.FieldSpecs != nil)}, errs
}

// Transform renames the objects and then every reference to them.
func (t *prefixSuffix) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	if t.prefix == "" && t.suffix == "" {
		return objects, nil
	}
	var renames []filters.Rename
	grown := len(t.prefix) + len(t.suffix)
	for _, obj := range objects {
		if err := ctx.Spend(0); err != nil {
			return nil, err
		}
		id := transform.GVKOf(obj)
		if filters.SkipsRename(id) {
			continue
		}
		for _, s := range t.specs.ForKind(id.Kind) {
			if !s.Matches(id) {
				continue
			}
			isName := s.Path == "metadata/name"
			if isName {
				ctx.RecordOrigin(obj)
			}
			err := s.Apply(obj, func(parent map[string]any, key string) error {
				old, ok := parent[key].(string)
				if !ok && parent[key] != nil {
					return fmt.Errorf("not a string")
				}
				parent[key] = t.prefix + old + t.suffix
				if isName && old != "" {
					renames = append(renames, filters.Rename{ID: id, Namespace: transform.NamespaceOf(obj), OldName: old, NewName: t.prefix + old + t.suffix})
				}
				// Each name is a new string: a long prefix over many objects adds up.
				return ctx.Spend(grown)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return objects, filters.FixNameReferences(objects, renames)
}
