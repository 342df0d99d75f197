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

package plugin

import (
	"encoding/json"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin/exec"
	"stencil.dev/stencil/pkg/transform/plugin/exec/exectest"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// The same change, krm: bench on every object's metadata, made three ways over 200 objects
// (100 Deployment+Service pairs): the built-in AnnotationsTransformer (the baseline), a
// Starlark transformer, and an exec plugin (a KRM function built by the test, run confined).
// Each side goes from the objects' bytes to the result's bytes.

// pluginBenchSides are the three configs, by side.
func pluginBenchSides(tb testing.TB) map[string]transform.Config {
	starlark, _ := json.Marshal(map[string]any{"apiVersion": "fn.example.com/v1", "kind": "Annotate", "spec": map[string]any{"value": "bench"},
		"provider": map[string]any{"starlark": map[string]any{"source": transformtest.BenchStarlark}}})
	return map[string]transform.Config{
		"builtin":  {Raw: json.RawMessage(`{"kind":"AnnotationsTransformer","annotations":{"krm":"bench"},"fieldSpecs":[{"path":"metadata/annotations","create":true}]}`)},
		"starlark": {Raw: starlark},
		"exec":     {Raw: json.RawMessage(`{"apiVersion":"fn.example.com/v1","kind":"Annotate","provider":{"exec":{"path":"annotate"}},"spec":{"value":"bench"}}`)},
	}
}

func pluginBenchPipeline(tb testing.TB, side string) *transform.Pipeline {
	p, errs := testKinds.Compile(Policy{Starlark: true, Exec: &exec.Policy{Dir: exectest.Build(tb)}}, []transform.Config{pluginBenchSides(tb)[side]})
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return p
}

func BenchmarkPluginAnnotate(b *testing.B) {
	in := transformtest.Pairs(100)
	for _, side := range []string{"builtin", "starlark", "exec"} {
		p := pluginBenchPipeline(b, side)
		b.Run(side, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := transformtest.RunPipeline(p, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPluginBenchSidesAgree: the three sides of BenchmarkPluginAnnotate make the same objects.
func TestPluginBenchSidesAgree(t *testing.T) {
	in := transformtest.Pairs(3)
	var want []transform.Object
	for _, side := range []string{"builtin", "starlark", "exec"} {
		out, _, err := transformtest.RunPipeline(pluginBenchPipeline(t, side), in)
		if err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		got, err := jsonbytes.DecodeObjects(out)
		if err != nil {
			t.Fatal(err)
		}
		if transform.NestedString(got[0], "metadata", "annotations", "krm") != "bench" {
			t.Fatalf("%s did not annotate", side)
		}
		if want == nil {
			want = got
			continue
		}
		transformtest.AssertObjects(t, got, want)
	}
}
