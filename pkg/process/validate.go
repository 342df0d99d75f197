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

package process

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
)

// ValidateReferences checks the parameter references of one of our Templates: ${X}, ${{X}} and
// $((X)) naming an undeclared parameter, and $(X) that Kubernetes would also expand as an env
// var of the same container. It looks at the objects, message, object labels and transformer
// configs, and reports nothing else: parameters, JSON syntax and object headers are the
// business of the rest of validation (or of Validate, which reports everything).
func ValidateReferences(t *templates.Template) field.ErrorList {
	c := newCompiler(t, Stencil)
	c.errs = nil // parameter problems are reported by parameter validation
	c.compileText()
	c.referencesIn(t.Objects, "objects")
	c.referencesIn(t.Transformers, "transformers")
	c.referencesIn(t.TransformerOverrides, "transformerOverrides")
	c.release()
	return c.errs
}

// referencesIn adds the reference errors of raw objects, skipping those that are not JSON
// objects.
func (c *compiler) referencesIn(raws []runtime.RawExtension, list string) {
	for i := range raws {
		src, err := c.structure.compact(c.src[:0], raws[i].Raw)
		c.src = src
		if err != nil || len(src) == 0 || src[0] != '{' {
			continue
		}
		w := c.newWalker(src, objectPath{list, i}, true)
		start := w.mark()
		w.object(0, len(src), walkContext{envIndex: -1})
		w.rewind(start)
		c.errs = append(c.errs, w.errs...)
	}
}
