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

package exec

import (
	"encoding/json"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/transform"
)

// execPlugins compiles the configs exec plugins run under policy, as plugin.Policy does where
// they are on (the plugin package's tests cover the policy itself). With as set, a seed 000
// config runs the test plugin of that name instead of the one of its API group.
type execPlugins struct {
	policy *Policy
	as     string
}

// PluginFactory compiles a seed 000 config, or h's provider.exec or provider.container.
func (e execPlugins) PluginFactory(h transform.Header, path *field.Path, generator bool) (transform.Factory, field.ErrorList) {
	if !transform.HasProvider(h) {
		group, _ := transform.SplitAPIVersion(h.APIVersion)
		f := e.policy.SeedFactory(group, generator)
		if e.as == "" {
			return f, nil
		}
		return func(config []byte, fldPath *field.Path) (transform.Transformer, field.ErrorList) {
			t, errs := f(config, fldPath)
			if s, ok := t.(*execStep); ok {
				s.exe = filepath.Join(e.policy.Dir, e.as)
			}
			return t, errs
		}, nil
	}
	var p struct {
		Exec      *struct{ Path string }
		Container *struct{ Image string }
	}
	if err := json.Unmarshal(h.Provider, &p); err != nil || p.Exec == nil && p.Container == nil {
		return nil, field.ErrorList{field.Invalid(path.Child("provider"), string(h.Provider), "want exec or container")}
	}
	if p.Container != nil {
		return e.policy.KRMFactory("", p.Container.Image, path.Child("provider", "container", "image"), generator)
	}
	return e.policy.KRMFactory(p.Exec.Path, "", path.Child("provider", "exec", "path"), generator)
}

// testKinds has no kind: the tests compile exec plugins only.
var testKinds = transform.NewRegistry()
