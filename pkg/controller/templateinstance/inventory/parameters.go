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

package inventory

import (
	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// ParameterValues merges the values of an instance's parametersFrom (only keys the template
// declares, later Secrets over earlier ones) under its spec.parameters. secretData reads one
// Secret of the instance's namespace; its error is returned as it is.
func ParameterValues(ti *templatesv1.TemplateInstance, t *templates.Template, secretData func(name string) (map[string][]byte, error)) (map[string]string, error) {
	declared := map[string]bool{}
	for _, p := range t.Parameters {
		declared[p.Name] = true
	}
	values := map[string]string{}
	for _, from := range ti.Spec.ParametersFrom {
		if from.SecretRef == nil {
			continue
		}
		data, err := secretData(from.SecretRef.Name)
		if err != nil {
			return nil, err
		}
		for k, v := range data {
			if declared[k] {
				values[k] = string(v)
			}
		}
	}
	for k, v := range ti.Spec.Parameters {
		values[k] = v
	}
	return values, nil
}

// GeneratedParameters are the parameters the engine generates because nobody gave a value.
func GeneratedParameters(t *templates.Template, values map[string]string) map[string]bool {
	names := map[string]bool{}
	for _, p := range t.Parameters {
		if p.Generate != "" && values[p.Name] == "" {
			names[p.Name] = true
		}
	}
	return names
}
