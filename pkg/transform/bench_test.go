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

package transform_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// The benchmarks run the same transformations through our pipeline and through krusty:
// namePrefix, commonLabels, an image override and one multi-target patch, over N
// Deployment+Service pairs. Run them with
//
//	go test -tags kustomize_disable_go_plugin_support -run '^$' -bench . -benchtime 1x ./pkg/transform
//
// (krusty takes seconds per build at 800 pairs) and compare ns/op at the same size; ns/pair
// shows whether a side is linear. Both sides start from the objects' bytes and end with the
// result's bytes (our Run decodes and encodes; krusty reads its in-memory file system and
// the result is printed as YAML, as kustomize build does).

// benchPipeline compiles the workload's transformer list.
func benchPipeline(tb testing.TB) *transform.Pipeline {
	configs := make([]transform.Config, len(transformtest.Transformers))
	for i, c := range transformtest.Transformers {
		configs[i] = transform.Config{Raw: json.RawMessage(c)}
	}
	p, errs := testKinds.Compile(plugin.Policy{}, configs)
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return p
}

// benchFS writes the krusty side's kustomization and objects.
func benchFS(tb testing.TB, objects []json.RawMessage) filesys.FileSystem {
	fSys := filesys.MakeFsInMemory()
	var docs strings.Builder
	for _, o := range objects {
		docs.Write(o)
		docs.WriteString("\n---\n")
	}
	if err := fSys.WriteFile("/app/kustomization.yaml", []byte(transformtest.Kustomization)); err != nil {
		tb.Fatal(err)
	}
	if err := fSys.WriteFile("/app/objects.yaml", []byte(docs.String())); err != nil {
		tb.Fatal(err)
	}
	return fSys
}

func BenchmarkPipeline(b *testing.B) {
	p := benchPipeline(b)
	for _, pairs := range []int{200, 800, 10000} {
		in := transformtest.Pairs(pairs)
		b.Run(fmt.Sprintf("pairs=%d", pairs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := transformtest.RunPipeline(p, in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pairs), "ns/pair")
		})
	}
}

func BenchmarkKrusty(b *testing.B) {
	for _, pairs := range []int{200, 800} {
		fSys := benchFS(b, transformtest.Pairs(pairs))
		b.Run(fmt.Sprintf("pairs=%d", pairs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fSys, "/app")
				if err != nil {
					b.Fatal(err)
				}
				// Both sides go from bytes to bytes: our Run encodes its result, and
				// kustomize build prints it.
				if _, err := m.AsYaml(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pairs), "ns/pair")
		})
	}
}

// TestBenchEquivalence checks that both sides of the benchmark produce the same objects.
func TestBenchEquivalence(t *testing.T) {
	in := transformtest.Pairs(4)
	out, _, err := transformtest.RunPipeline(benchPipeline(t), in)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := jsonbytes.DecodeObjects(out)
	if err != nil {
		t.Fatal(err)
	}
	transformtest.AssertObjects(t, ours, krustyObjects(t, benchFS(t, in), "/app"))
}
