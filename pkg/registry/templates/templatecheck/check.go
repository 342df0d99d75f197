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

// Package templatecheck is every check the store makes of a Template written to it, apart
// from the storage: stencil lint makes the same checks of files, and the CLI imports it
// without the server's storage.
package templatecheck

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/process/celgate"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// Check adds to the API's errs (validation.ValidateTemplate or ValidateTemplateUpdate) the
// engine's checks under plugins (render.CheckTemplate: compile, CEL rules, generator and
// transformer configs), the rollout gate's compile and the size etcd stores, sorted by field. With no error, it also
// returns what a Template of OpenShift's dialect is let off with.
func Check(t *templates.Template, plugins plugin.Policy, errs field.ErrorList) (field.ErrorList, []string) {
	engineErrs, tolerated := render.CheckTemplate(t, plugins)
	errs = validation.SortByField(append(append(append(errs, engineErrs...), gateErrors(t)...), sizeErrors(t)...))
	if len(errs) > 0 {
		return errs, nil
	}
	return nil, tolerated
}

// gateErrors reports a rollout gate that does not compile, or is no condition.
func gateErrors(t *templates.Template) field.ErrorList {
	if t.Rollout == nil || t.Rollout.Gate == "" {
		return nil
	}
	if _, err := celgate.Compile(t.Rollout.Gate); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("rollout", "gate"), t.Rollout.Gate, err.Error())}
	}
	return nil
}
