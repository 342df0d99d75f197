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
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"stencil.dev/stencil/pkg/apis/templates"
)

// BenchmarkExpressions measures, in the same run, a stored template with CEL rules,
// include-when and for-each objects beside the same template without them (synthetic-N of
// BenchmarkProcess): cached is Execute of a compiled plan, oneshot Compile + Execute. The
// template with expressions has three rules, every Secret conditional (true) and every
// ConfigMap repeated over a one-element list, so that both write the same objects.
func BenchmarkExpressions(b *testing.B) {
	req := Request{Parameters: map[string]string{"NAME": "bench"}}
	for _, n := range []int{10, 100} {
		for _, side := range []struct {
			name string
			tmpl *templates.Template
		}{{"without", syntheticTemplate(n)}, {"with", withExpressions(syntheticTemplate(n))}} {
			name := fmt.Sprintf("synthetic-%d/%s", n, side.name)
			b.Run(name+"/cached", func(b *testing.B) {
				plan, errs := Compile(side.tmpl, Stencil)
				if len(errs) > 0 {
					b.Fatal(errs)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, errs := plan.Execute(req); len(errs) > 0 {
						b.Fatal(errs)
					}
				}
			})
			b.Run(name+"/oneshot", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, errs := compileAndExecute(side.tmpl, Stencil, req); len(errs) > 0 {
						b.Fatal(errs)
					}
				}
			})
		}
	}
}

// withExpressions adds rules, conditional Secrets and repeated ConfigMaps to a synthetic
// template.
func withExpressions(t *templates.Template) *templates.Template {
	maxLength, maxItems := int64(16), int64(8)
	t.Parameters = append(t.Parameters,
		templates.Parameter{Name: "TLS", Type: templates.ParameterTypeBool, Value: "true"},
		templates.Parameter{Name: "MIN", Type: templates.ParameterTypeInt, Value: "1"},
		templates.Parameter{Name: "MAX", Type: templates.ParameterTypeInt, Value: "5"},
		templates.Parameter{Name: "ZONES", Type: templates.ParameterTypeJSON, Value: `["eu-1"]`,
			Items: &templates.JSONValueSchema{Type: templates.ParameterTypeString, MaxLength: &maxLength}, MaxItems: &maxItems})
	t.Rules = []templates.ParameterRule{
		{Rule: "params.MIN <= params.MAX", FieldPath: "MAX"},
		{Rule: "params.REPLICAS >= params.MIN && params.REPLICAS <= params.MAX", FieldPath: "REPLICAS"},
		{Rule: "params.ZONES.all(z, z.size() > 2)"},
	}
	for i, o := range t.Objects {
		s := strings.Replace(string(o.Raw), `"kind":"Secret","metadata":{`,
			`"kind":"Secret","metadata":{"annotations":{"templates.stencil.dev/include-when":"params.TLS"},`, 1)
		s = strings.Replace(s, `"kind":"ConfigMap","metadata":{"name":"${NAME}-`,
			`"kind":"ConfigMap","metadata":{"annotations":{"templates.stencil.dev/for-each":"params.ZONES"},"name":"${ITEM}-${NAME}-`, 1)
		t.Objects[i] = runtime.RawExtension{Raw: []byte(s)}
	}
	return t
}

// TestExpressionsBenchmarkTemplate checks that the benchmark's two templates write the same
// number of objects, so that the comparison is one of the expressions' cost.
func TestExpressionsBenchmarkTemplate(t *testing.T) {
	req := Request{Parameters: map[string]string{"NAME": "bench"}}
	without, errs := compileAndExecute(syntheticTemplate(12), Stencil, req)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	with, errs := compileAndExecute(withExpressions(syntheticTemplate(12)), Stencil, req)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(with.Objects) != len(without.Objects) || !strings.Contains(string(with.Objects[2]), `"name":"eu-1-bench-2"`) {
		t.Fatalf("with %d objects, without %d: %s", len(with.Objects), len(without.Objects), with.Objects[2])
	}
}
