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

package starlark

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/transform"
)

// starlarkPlugins compiles the configs of provider starlark with opts, as plugin.Policy does
// where Starlark is on (the plugin package's tests cover the policy itself).
type starlarkPlugins struct{ opts Options }

// PluginFactory compiles h's provider.starlark.
func (s starlarkPlugins) PluginFactory(h transform.Header, path *field.Path, _ bool) (transform.Factory, field.ErrorList) {
	var p struct{ Starlark struct{ Source, Path string } }
	if err := json.Unmarshal(h.Provider, &p); err != nil {
		return nil, field.ErrorList{field.Invalid(path.Child("provider"), "", err.Error())}
	}
	return s.opts.Factory(p.Starlark.Source, p.Starlark.Path, path.Child("provider", "starlark"))
}

// testKinds has no kind: the tests compile Starlark configs only.
var testKinds = transform.NewRegistry()
