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
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Plugins compiles the configs that a plugin runs rather than a built-in (see IsPluginConfig):
// one with a provider, or an apiVersion of its own API group. pkg/transform/plugin's Policy is
// the one the server and the CLI use; it decides, for one namespace, which providers run. The
// core imports no plugin: it only asks.
type Plugins interface {
	// PluginFactory returns the factory of the plugin config whose header is h, or every
	// reason it cannot run, with paths under path; generator says the config is one of the
	// Template's generators.
	PluginFactory(h Header, path *field.Path, generator bool) (Factory, field.ErrorList)
}

// pluginFactory asks plugins for the factory of a plugin config; nil plugins run none.
func pluginFactory(plugins Plugins, h Header, path *field.Path, generator bool) (Factory, field.ErrorList) {
	if plugins == nil {
		where := path.Child("apiVersion")
		if HasProvider(h) {
			where = path.Child("provider")
		}
		return nil, field.ErrorList{field.Forbidden(where, "plugins do not run here")}
	}
	return plugins.PluginFactory(h, path, generator)
}

// IsPluginConfig reports whether a config is run by a plugin rather than a built-in: it has a
// provider, or an apiVersion of its own API group (seed 000's exec plugins).
func IsPluginConfig(h Header) bool {
	if HasProvider(h) {
		return true
	}
	switch h.APIVersion {
	case "", BuiltinAPIVersion, KustomizationAPIVersion:
		return false
	}
	return !HasParamRef(h.APIVersion)
}

// HasProvider reports whether a config names a provider (a null one names none).
func HasProvider(h Header) bool {
	return len(h.Provider) > 0 && string(h.Provider) != "null"
}

// UsesPlugins reports whether a Template's own generators or transformers need a plugin.
func UsesPlugins(t *templates.Template) bool {
	for _, list := range [][]runtime.RawExtension{t.Generators, t.Transformers} {
		for _, raw := range list {
			var h Header
			if json.Unmarshal(raw.Raw, &h) == nil && IsPluginConfig(h) {
				return true
			}
		}
	}
	return false
}

// IsOutputTooLarge reports whether err (a step's, as a *Error's Err) is the objects passing
// the request's output budget (NewContext's maxBytes), by a built-in's accounting, by the
// measure after a step, or by a plugin's result; a caller that tried a smaller budget than
// the request's may then try again with a larger one.
func IsOutputTooLarge(err error) bool { return errors.Is(err, ErrOutputTooLarge) }
