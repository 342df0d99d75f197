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
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
)

// BenchmarkRenderProvenance measures whole processing with transformers, off and on, in the
// same run: the README's example (three objects, a label and an image-tag transformer) read
// with its file's places, and the same three objects repeated 100 times. on/off is what a
// request with provenance pays, the engine's trace and every step's diff included.
func BenchmarkRenderProvenance(b *testing.B) {
	data, err := os.ReadFile("../../artifacts/examples/app.yaml")
	if err != nil {
		b.Fatal(err)
	}
	x, err := positions.Read("app.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	example, _, err := process.DecodeTemplate(x.JSON())
	if err != nil {
		b.Fatal(err)
	}
	wide := *example
	wide.Objects = nil
	for i := range 100 {
		for _, o := range example.Objects {
			object := strings.ReplaceAll(string(o.Raw), "${NAME}", fmt.Sprintf("${NAME}-%d", i))
			wide.Objects = append(wide.Objects, raw(object)...)
		}
	}
	r := NewRenderer(Options{})
	for _, c := range []struct {
		name string
		in   Input
	}{{"example", Input{Template: example}}, {"example-x100", Input{Template: &wide}}} {
		b.Run(c.name+"/off", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, errs, err := r.Render(context.Background(), c.in); err != nil || len(errs) > 0 {
					b.Fatal(err, errs)
				}
			}
		})
		b.Run(c.name+"/on", func(b *testing.B) {
			in := c.in
			in.Provenance = &ProvenanceOptions{Positions: x}
			b.ReportAllocs()
			for b.Loop() {
				if _, errs, err := r.Render(context.Background(), in); err != nil || len(errs) > 0 {
					b.Fatal(err, errs)
				}
			}
		})
	}
}
