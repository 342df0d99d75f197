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
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/filters"
	"stencil.dev/stencil/pkg/transform/remove"
)

// RemoveTransformer is a shell over package remove, which holds the paths and how they
// remove; it lives here with the other built-ins, and package remove imports none of them.

// removeConfig is the config of RemoveTransformer:
//
//	apiVersion: builtin
//	kind: RemoveTransformer
//	metadata: {name: drop-node-ports}
//	target: {kind: Service}            # optional (a patch target); every object when absent
//	paths: ['$.spec.ports[*].nodePort']
type removeConfig struct {
	transform.ConfigMeta `json:",inline"`
	Target               *filters.Selector `json:"target,omitempty"`
	Paths                []string          `json:"paths"`
}

type removeTransformer struct {
	target *filters.CompiledSelector
	paths  []remove.Path
}

func newRemoveTransformer(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
	var cfg removeConfig
	if errs := transform.DecodeConfig(config, &cfg, fldPath); len(errs) > 0 {
		return nil, errs
	}
	var errs field.ErrorList
	t := &removeTransformer{}
	if cfg.Target != nil {
		t.target, errs = filters.CompileSelector(cfg.Target, fldPath.Child("target"))
	}
	pathsPath := fldPath.Child("paths")
	if len(cfg.Paths) == 0 {
		errs = append(errs, field.Required(pathsPath, "at least one JSONPath to remove"))
	}
	paths, pathErrs := remove.ParsePaths(cfg.Paths, pathsPath)
	errs = append(errs, pathErrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	t.paths = paths
	return t, nil
}

// Transform removes the paths from every object the target selects, warning when it selects
// none.
func (t *removeTransformer) Transform(ctx *transform.Context, objects []transform.Object) ([]transform.Object, error) {
	matched := false
	for _, obj := range objects {
		if t.target != nil && !t.target.Matches(ctx, obj) {
			continue
		}
		matched = true
		for _, p := range t.paths {
			p.RemoveFrom(obj)
		}
	}
	if !matched && t.target != nil {
		// As for patches: a target that selects nothing is most likely a mistake.
		ctx.Warnf("RemoveTransformer: target matches none of the %d objects; nothing removed", len(objects))
	}
	return objects, nil
}
