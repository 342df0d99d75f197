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

package render

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// CheckTemplate runs the checks of a Template that need the engine, from one compile: what
// compiling finds (parameters, generators and their expressions, typed defaults, objects,
// object labels, references to undeclared parameters), the generator configs, and the
// transformer configs, overrides and order, plugin providers checked against plugins. With no
// error, it also returns what a Template of OpenShift's dialect is let off with, as OpenShift
// lets it (duplicate parameter names, invalid labels, undeclared references), each an error in
// Stencil's dialect. The store runs it on every write, so that a template is refused when it
// is stored rather than each time it is processed, and stencil export runs it on the template
// it writes.
func CheckTemplate(t *templates.Template, plugins plugin.Policy) (field.ErrorList, []string) {
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	// The plan is only looked at: its memory goes back for the next one.
	plan, errs := process.CompileDisposable(t, dialect)
	var warnings []string
	if plan != nil {
		warnings = plan.Warnings()
		plan.Dispose()
	}
	errs = append(errs, kinds().ValidateGenerators(plugins, t)...)
	errs = append(errs, kinds().ValidateTransformers(plugins, t)...)
	if len(errs) > 0 || !t.OpenShift {
		return errs, nil
	}
	return nil, warnings
}
