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
	"errors"
	"strings"
	"sync"
	"testing"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// compileYAML consolidates YAML configs of one template and compiles them.
func compileYAML(t *testing.T, configs ...string) *transform.Pipeline {
	t.Helper()
	tm := tmpl("t")
	tm.Transformers = raws(t, configs...)
	list, errs := transform.Consolidate(tm, store())
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	p, errs := testKinds.Compile(plugin.Policy{}, list)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	return p
}

func TestPipelineRun(t *testing.T) {
	p := compileYAML(t,
		"{kind: PrefixSuffixTransformer, prefix: p-}",
		// Targets match the name an object had when the pipeline started, as in Kustomize.
		"{kind: PatchTransformer, target: {kind: Deployment, name: web}, patch: {spec: {replicas: 2}}}",
		"{kind: PatchTransformer, metadata: {name: nothing}, target: {kind: Nope}, patch: {spec: {}}}")
	in := []json.RawMessage{json.RawMessage(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1}}`)}
	out, warnings, err := transformtest.RunPipeline(p, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"p-web"},"spec":{"replicas":2}}`; string(out[0]) != want {
		t.Errorf("got %s", out[0])
	}
	if len(warnings) != 1 || warnings[0] != `transformer "nothing": the patch matches no object` {
		t.Errorf("warnings: %q", warnings)
	}
}

func TestPipelineErrors(t *testing.T) {
	p := compileYAML(t, "{kind: PatchTransformer, target: {kind: Service}, patch: [{op: remove, path: /spec/missing}]}")
	_, _, err := transformtest.RunPipeline(p, []json.RawMessage{json.RawMessage(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{}}`)})
	var terr *transform.Error
	if !errors.As(err, &terr) || terr.Name != "patch-transformer" || terr.Kind != "PatchTransformer" {
		t.Errorf("want a transform.Error, got %#v", err)
	}
	if _, _, err := transformtest.RunPipeline(p, []json.RawMessage{json.RawMessage(`[]`)}); err == nil {
		t.Error("want an error for a non-object")
	}

	_, errs := testKinds.Compile(plugin.Policy{}, []transform.Config{
		{Raw: transformtest.YAMLJSON(t, "{kind: LabelTransformer, labels: {'bad key!': x}}")},
		{Raw: transformtest.YAMLJSON(t, "{kind: LabelTransformer}")},
		{Raw: []byte("nope")},
	})
	got := errs.ToAggregate().Error()
	for _, want := range []string{"transformers[0].labels", "transformers[1].metadata.name: Duplicate", "transformers[2]: Invalid"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %s", want, got)
		}
	}
}

func TestPipelineEmpty(t *testing.T) {
	p, errs := testKinds.Compile(plugin.Policy{}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	in := []transform.Object{{"b": json.Number("1"), "a": json.Number("2")}}
	ctx := &transform.Context{}
	out, err := p.Transform(ctx, in)
	if err != nil || len(out) != 1 || len(out[0]) != 2 || out[0]["b"] != json.Number("1") || len(ctx.Warnings()) > 0 {
		t.Errorf("an empty pipeline must return its input: %v %v %v", out, err, ctx.Warnings())
	}
}

// TestPipelineConcurrent runs one pipeline from many goroutines; with -race it shows that
// transformers keep no state between runs.
func TestPipelineConcurrent(t *testing.T) {
	p := compileYAML(t,
		"{kind: PrefixSuffixTransformer, prefix: p-}",
		"{kind: LabelTransformer, labels: {a: b}}",
		"{kind: ImageTagTransformer, imageTag: {name: nginx, newTag: '2'}}",
		"{kind: PatchTransformer, target: {kind: Deployment}, patch: {spec: {template: {spec: {containers: [{name: side, image: s}]}}}}}",
		"{kind: NamespaceTransformer, metadata: {namespace: ns}}")
	in := transformtest.Pairs(5)
	want, _, err := transformtest.RunPipeline(p, in)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, _, err := transformtest.RunPipeline(p, in)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range out {
				if string(out[i]) != string(want[i]) {
					t.Errorf("run differs: %s", out[i])
				}
			}
		}()
	}
	wg.Wait()
}
