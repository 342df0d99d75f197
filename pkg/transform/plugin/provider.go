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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
	"stencil.dev/stencil/pkg/transform/plugin/starlark"
)

// Plugins run code the template's author wrote: a Starlark script in-process, or an
// executable the administrator installed. None runs unless the administrator turned its
// provider on; a config that needs a provider that is off is refused with a 422 naming the
// provider, when the Template is written and again when it is processed (the policy may have
// changed in between).

// Provider is the reserved provider field of a plugin config (the Composition KEP): exactly
// one of its members.
type Provider struct {
	// Starlark runs a Starlark script in-process over a KRM ResourceList.
	Starlark *StarlarkProvider `json:"starlark,omitempty"`
	// Exec runs a KRM function: an executable inside the administrator's plugin directory.
	Exec *ExecProvider `json:"exec,omitempty"`
	// Container runs a KRM function image, mapped by the administrator to an executable in
	// the plugin directory; no image is ever pulled.
	Container *ContainerProvider `json:"container,omitempty"`
}

// StarlarkProvider is a Starlark script, inline or (in the CLI's --local mode only) a file.
type StarlarkProvider struct {
	Source string `json:"source,omitempty"`
	Path   string `json:"path,omitempty"`
}

// ExecProvider names an executable relative to the plugin directory.
type ExecProvider struct {
	Path string `json:"path"`
}

// ContainerProvider names a KRM function image.
type ContainerProvider struct {
	Image string `json:"image"`
}

// The provider names, as users write them and as the policy reports them.
const (
	ProviderStarlark  = "starlark"
	ProviderExec      = "exec"
	ProviderContainer = "container"
	// ProviderExecPlugin is seed 000's protocol: an executable named after the config's API
	// group, with generate or transform as its argument.
	ProviderExecPlugin = "execPlugin"
)

// Policy is the administrator's policy for one namespace: which plugin providers may run.
// The zero value runs none.
type Policy struct {
	// Starlark runs provider.starlark transformers in-process.
	Starlark bool
	// LocalFiles lets provider.starlark.path name a file on the local disk: the CLI's --local
	// mode, where the user runs their own files on their own machine; never on the server.
	LocalFiles bool
	// LocalDir is the template file's directory, the only one provider.starlark.path reads
	// from (see readLocalScript); empty (a template from stdin) reads no file.
	LocalDir string
	// Exec runs exec and container providers and seed 000's exec plugins from the
	// administrator's plugin directory; nil runs none.
	Exec *exec.Policy
}

// PolicyFunc returns the plugins allowed in a namespace.
type PolicyFunc func(namespace string) Policy

// Enabled lists the providers p runs, in a fixed order, for the policy the server reports.
func (p Policy) Enabled() []string {
	var out []string
	if p.Starlark {
		out = append(out, ProviderStarlark)
	}
	if p.Exec != nil {
		out = append(out, ProviderExec, ProviderExecPlugin)
		if len(p.Exec.Images) > 0 {
			out = append(out, ProviderContainer)
		}
	}
	return out
}

// CacheKey identifies the policy in cache keys: the same configs compile differently under
// another policy.
func (p Policy) CacheKey() string {
	return fmt.Sprintf("%t/%t/%q/%p", p.Starlark, p.LocalFiles, p.LocalDir, p.Exec)
}

// disabled is the 422 of a provider that is off: it says which, and who can turn it on.
func disabled(path *field.Path, provider, how string) *field.Error {
	return field.Forbidden(path, fmt.Sprintf("the %s provider is not enabled on this server: an administrator must enable it (%s)", provider, how))
}

// PluginFactory returns the factory of a plugin config (IsPluginConfig) under p, or why it
// cannot run: without a provider, seed 000's exec plugin of its API group.
func (p Policy) PluginFactory(h transform.Header, path *field.Path, generator bool) (transform.Factory, field.ErrorList) {
	if !transform.HasProvider(h) {
		group, _ := transform.SplitAPIVersion(h.APIVersion)
		if group == "" || strings.ContainsAny(group, "/\\") || group == "." || group == ".." {
			return nil, field.ErrorList{field.Invalid(path.Child("apiVersion"), h.APIVersion,
				"a plugin's apiVersion must name an API group, such as team.example.com/v1")}
		}
		if p.Exec == nil {
			return nil, field.ErrorList{disabled(path.Child("apiVersion"), ProviderExecPlugin+" ("+group+")", "stencil-apiserver --plugin-dir")}
		}
		return p.Exec.SeedFactory(group, generator), nil
	}
	var provider struct {
		Provider Provider `json:"provider"`
	}
	pp := path.Child("provider")
	if errs := transform.DecodeConfig(append(append([]byte(`{"provider":`), h.Provider...), '}'), &provider, path); len(errs) > 0 {
		return nil, errs
	}
	pr := provider.Provider
	set := 0
	for _, ok := range []bool{pr.Starlark != nil, pr.Exec != nil, pr.Container != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, field.ErrorList{field.Invalid(pp, "", "give exactly one of starlark, exec or container")}
	}
	switch {
	case pr.Starlark != nil:
		sp := pp.Child(ProviderStarlark)
		if generator {
			return nil, field.ErrorList{field.Forbidden(sp, "a Starlark function runs as a transformer: add objects to its items")}
		}
		if !p.Starlark {
			return nil, field.ErrorList{disabled(sp, ProviderStarlark, "stencil-apiserver --enable-starlark or --starlark-namespaces; stencil process --local always runs it")}
		}
		return starlark.Options{LocalFiles: p.LocalFiles, LocalDir: p.LocalDir}.Factory(pr.Starlark.Source, pr.Starlark.Path, sp)
	case pr.Exec != nil:
		if p.Exec == nil {
			return nil, field.ErrorList{disabled(pp.Child(ProviderExec), ProviderExec, "stencil-apiserver --plugin-dir; stencil process --local --plugin-dir DIR --enable-exec")}
		}
		return p.Exec.KRMFactory(pr.Exec.Path, "", pp.Child(ProviderExec, "path"), generator)
	default:
		if p.Exec == nil {
			return nil, field.ErrorList{disabled(pp.Child(ProviderContainer), ProviderContainer, "stencil-apiserver --plugin-dir and --plugin-images")}
		}
		return p.Exec.KRMFactory("", pr.Container.Image, pp.Child(ProviderContainer, "image"), generator)
	}
}

// Describe says which providers p runs, for the warning a template that uses plugins gets at
// create and at processing time, so that its author sees the policy of the namespace.
func (p Policy) Describe() string {
	enabled := p.Enabled()
	if len(enabled) == 0 {
		return "plugin providers enabled in this namespace: none (an administrator enables them)"
	}
	msg := "plugin providers enabled in this namespace: " + strings.Join(enabled, ", ")
	if p.Exec != nil {
		msg += " (exec plugins confined by: " + exec.Confinement() + ")"
	}
	return msg
}
