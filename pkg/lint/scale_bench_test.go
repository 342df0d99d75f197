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

package lint_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/lint"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/templatecheck"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// BenchmarkLintScaling lints files of 100, 1,000 and 10,000 Deployments, every tenth with a
// misspelt field (manyObjects), three ways in the same run:
//   - server: the checks the server makes of the template when it is created (decoding it,
//     validation, the engine's compile, the stored size), no places: the baseline;
//   - lint: stencil lint with the same checks, every finding placed at its line and column;
//   - lint+types: and the type check of every object against its kind's schema.
//
// Each 10 times more objects must cost at most 12 times more, and lint at most 3 times the
// server's checks (hack/benchtable).
func BenchmarkLintScaling(b *testing.B) {
	c := checker(b)
	for _, n := range []int{100, 1000, 10000} {
		data, _ := manyObjects(n)
		b.Run(fmt.Sprintf("objects=%d/server", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				t, _, _, err := process.DecodeTemplateFile(data)
				if err != nil {
					b.Fatal(err)
				}
				t.Namespace = metav1.NamespaceDefault
				if errs, _ := templatecheck.Check(t, plugin.Policy{}, validation.ValidateTemplate(t)); n < 10000 && len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
		for _, side := range []struct {
			name string
			opts lint.Options
		}{{"lint", lint.Options{}}, {"lint+types", lint.Options{Checker: c}}} {
			b.Run(fmt.Sprintf("objects=%d/%s", n, side.name), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					ds := lint.File(context.Background(), "many.yaml", data, side.opts)
					if n == 10000 && (len(ds) == 0 || ds[len(ds)-1].Line == 0) {
						b.Fatalf("the findings are not placed: %+v", ds)
					}
				}
			})
		}
	}
}
