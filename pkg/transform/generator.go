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
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// Generators are the first phase of the pipeline (seed 000's phases): each adds objects to
// the template's, or replaces or merges into one of them (behavior), before any transformer
// runs. A generator is a Transformer whose config comes from the Template's generators list;
// what differs is only where it runs and how it is named in errors.

// generatorFactory returns the factory of a generator kind, or why there is none.
func (r *Registry) generatorFactory(apiVersion, kind string) (Factory, string) {
	if apiVersion != "" && apiVersion != BuiltinAPIVersion {
		return nil, "a built-in generator has apiVersion " + BuiltinAPIVersion
	}
	if f, ok := r.generators[kind]; ok {
		return f, ""
	}
	return nil, "unknown built-in generator kind"
}

// generatorKindError reports an unusable generator apiVersion or kind; its caller has
// already required a kind.
func (r *Registry) generatorKindError(path *field.Path, apiVersion, kind, why string) *field.Error {
	if apiVersion != "" && apiVersion != BuiltinAPIVersion {
		return field.Invalid(path.Child("apiVersion"), apiVersion, why)
	}
	return field.NotSupported(path.Child("kind"), kind, r.generatorKinds())
}

// GeneratorConfigs returns a Template's generator configs, apiVersion defaulted to builtin,
// with their paths, for Compile.
func GeneratorConfigs(raws []json.RawMessage) []Config {
	configs := make([]Config, len(raws))
	path := field.NewPath("generators")
	for i, raw := range raws {
		configs[i] = Config{Raw: raw, Path: path.Index(i), Generator: true}
	}
	return configs
}

// ValidateGenerators checks what can be known about a Template's generators when it is
// created or updated, plugin configs under plugins (a namespace's policy); fields holding
// parameter references are checked after substitution.
func (r *Registry) ValidateGenerators(plugins Plugins, t *templates.Template) field.ErrorList {
	var errs field.ErrorList
	for i, raw := range t.Generators {
		path := field.NewPath("generators").Index(i)
		if _, err := jsonbytes.DecodeObject(raw.Raw); err != nil {
			errs = append(errs, field.Invalid(path, string(raw.Raw), "a generator config must be an object: "+err.Error()))
			continue
		}
		h, factory, ferrs := r.factory(plugins, raw.Raw, path, true)
		if factory == nil {
			if !HasParamRef(h.APIVersion) && !HasParamRef(h.Kind) {
				errs = append(errs, ferrs...)
			}
			continue
		}
		_, ferrs = factory(raw.Raw, path)
		errs = append(errs, dropParamRefErrors(ferrs, raw.Raw, path)...)
	}
	return errs
}

// stepNoun says what a step is in messages: a generator or a transformer.
func stepNoun(generator bool) string {
	if generator {
		return "generator"
	}
	return "transformer"
}
