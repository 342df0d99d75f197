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

package plugin

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform"
)

// Steps says which kinds of steps a template's generators and transformers may run, read
// from their configs before parameters are substituted, so that what processing will hold
// can be charged before it is taken (pkg/render's memory model). A config whose header holds
// a parameter reference may become any kind, and counts as every kind p runs.
type Steps struct {
	// Any says some generator or transformer runs: the objects are decoded into trees.
	Any bool
	// Kustomization says an inline Kustomization may build.
	Kustomization bool
	// Starlark and Exec say a Starlark script or an exec plugin (a KRM function, a container
	// image, a seed 000 plugin) may run.
	Starlark, Exec bool
}

// Plugins reports whether a plugin of either provider may run.
func (s Steps) Plugins() bool { return s.Starlark || s.Exec }

// Steps reads the kinds of steps of t's generators and transformers (the consolidated list,
// as pkg/render gives it) under p: a provider p does not run is refused when the pipeline is
// compiled, so it never runs.
func (p Policy) Steps(t *templates.Template) Steps {
	var s Steps
	for _, list := range [][]runtime.RawExtension{t.Generators, t.Transformers} {
		for _, raw := range list {
			s.Any = true
			var h transform.Header
			if json.Unmarshal(raw.Raw, &h) != nil || transform.HasParamRef(h.APIVersion) || transform.HasParamRef(h.Kind) || transform.HasParamRef(string(h.Provider)) {
				s.Kustomization, s.Starlark, s.Exec = true, p.Starlark, p.Exec != nil
				continue
			}
			if !transform.IsPluginConfig(h) {
				s.Kustomization = s.Kustomization || (h.APIVersion == transform.KustomizationAPIVersion && h.Kind == "Kustomization")
				continue
			}
			var provider Provider
			if transform.HasProvider(h) && json.Unmarshal(h.Provider, &provider) == nil && provider.Starlark != nil {
				s.Starlark = s.Starlark || p.Starlark
				continue
			}
			s.Exec = s.Exec || p.Exec != nil
		}
	}
	return s
}

// PluginOutputBytes is the most one run of an exec plugin under p may write to stdout (and
// as much to stderr).
func (p Policy) PluginOutputBytes() int {
	if p.Exec == nil {
		return 0
	}
	return p.Exec.Limits.WithDefaults().MaxOutputBytes
}
