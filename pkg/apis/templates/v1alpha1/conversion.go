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

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Convert_templates_Template_To_v1alpha1_Template drops the in-memory OpenShift mark, which has
// no wire form.
func Convert_templates_Template_To_v1alpha1_Template(in *templates.Template, out *Template, s conversion.Scope) error {
	return autoConvert_templates_Template_To_v1alpha1_Template(in, out, s)
}

// Convert_v1alpha1_Template_To_templates_Template refuses numbers that Kubernetes cannot read
// in objects and transformer configs. They must be refused while the body is decoded: the API
// server tracks managed fields before any validation runs, and structured-merge-diff panics
// on such a number inside a RawExtension. A custom resource with one is refused at the same
// step, with a 400.
func Convert_v1alpha1_Template_To_templates_Template(in *Template, out *templates.Template, s conversion.Scope) error {
	if errs := templates.RawNumberErrors(in.Objects, in.Transformers, in.TransformerOverrides); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return autoConvert_v1alpha1_Template_To_templates_Template(in, out, s)
}
