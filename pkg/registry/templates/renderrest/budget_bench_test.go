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

package renderrest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
)

// BenchmarkMemoryBudget measures what charging the memory budget adds to processing a stored
// template (cached plan): the endpoint's path (a Hold, the charge of each attempt, the answer
// settled, then released) beside the renderer alone making the same List. With transformers,
// the charge also reads the kinds of the template's steps.
func BenchmarkMemoryBudget(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "process", "testdata", "mysql-persistent.json"))
	if err != nil {
		b.Fatal(err)
	}
	mysql, _, err := process.DecodeTemplate(data)
	if err != nil {
		b.Fatal(err)
	}
	mysql.UID, mysql.ResourceVersion = "u1", "1"
	labelled := mysql.DeepCopy()
	labelled.UID = "u2"
	labelled.Transformers = []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"l"},"labels":{"team":"a"}}`)}}
	for _, tc := range []struct {
		name     string
		template *templates.Template
	}{{"mysql", mysql}, {"mysql-with-transformer", labelled}} {
		in := render.Input{Template: tc.template, Stored: true, Request: process.Request{Parameters: map[string]string{"MYSQL_USER": "bench"}}}
		b.Run(tc.name+"/charged", func(b *testing.B) {
			adapter := NewAdapter(Sources{Memory: NewBudget(512<<20, 256<<20, nil)})
			b.ReportAllocs()
			for b.Loop() {
				h := adapter.memory.NewHold()
				if _, err := adapter.Render(WithHold(context.Background(), h), in); err != nil {
					b.Fatal(err)
				}
				h.Release()
			}
		})
		b.Run(tc.name+"/uncharged", func(b *testing.B) {
			renderer := render.NewRenderer(render.Options{})
			b.ReportAllocs()
			for b.Loop() {
				out, errs, err := renderer.Render(context.Background(), in)
				if err != nil || len(errs) > 0 {
					b.Fatal(err, errs)
				}
				if _, err := answer(out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
