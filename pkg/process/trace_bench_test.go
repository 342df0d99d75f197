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
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// BenchmarkProcessProvenance measures, beside BenchmarkProcess and on its templates, Execute of
// a cached plan three ways in the same run:
//   - off: as every request without provenance runs (compare with BenchmarkProcess's cached:
//     the same, so asking nothing costs nothing);
//   - decoded: Execute and decoding its objects into trees, which a request with provenance
//     does before tracing (and one with transformers does anyway);
//   - on: Execute with Request.Provenance and Plan.Trace, which reads the engine's bytes
//     without decoding them (a request with steps after the engine decodes them anyway).
//
// on/decoded is what tracing itself adds; on/off what a request with provenance pays in the
// engine.
func BenchmarkProcessProvenance(b *testing.B) {
	benchmarkTemplates(b, []int{100, 1000}, benchmarkProvenance)
}

func benchmarkProvenance(b *testing.B, name string, tmpl *templates.Template, dialect Dialect) {
	req := Request{Parameters: map[string]string{"MYSQL_USER": "u", "NAME": "bench"}, Labels: map[string]string{"instance": "bench"},
		IgnoreUnknownParameters: true}
	plan, errs := Compile(tmpl, dialect)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	b.Run(name+"/off", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := plan.Execute(req); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run(name+"/decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, errs := plan.Execute(req)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			if _, err := jsonbytes.DecodeObjects(res.Objects); err != nil {
				b.Fatal(err)
			}
		}
	})
	traced := req
	traced.Provenance = true
	b.Run(name+"/on", func(b *testing.B) {
		b.ReportAllocs()
		fields := 0
		for b.Loop() {
			res, errs := plan.Execute(traced)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			var err error
			if _, fields, err = plan.Trace(tmpl, req.Labels, res, TraceOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(fields), "fields")
	})
}
