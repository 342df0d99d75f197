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
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// copyPatch is issue 17's finding: a PatchTransformer whose copy operations each double
// every ConfigMap's data.
func copyPatch(copies int) string {
	ops := make([]string, copies)
	for i := range ops {
		ops[i] = fmt.Sprintf(`{op: copy, from: /data, path: /data/c%d}`, i)
	}
	return "{kind: PatchTransformer, metadata: {name: grow}, target: {kind: ConfigMap}, patch: [" + strings.Join(ops, ", ") + "]}"
}

// budgetError asserts that err is the named transformer passing the output budget.
func budgetError(t *testing.T, err error, name string) {
	t.Helper()
	var terr *transform.Error
	if !errors.As(err, &terr) || terr.Name != name || !errors.Is(err, transform.ErrOutputTooLarge) {
		t.Fatalf("want transformer %q over the output budget, got %v", name, err)
	}
}

func TestPipelineOutputBudget(t *testing.T) {
	const budget = 256 << 10
	cases := []struct {
		name, config string
		objects      []transform.Object
		fails        string // the transformer named, or "" when the output fits
	}{
		// 21 KB of request answered 425 MB: 200 ConfigMaps doubled eleven times.
		{"JSON 6902 copies", copyPatch(11), transformtest.ConfigMaps(200, 50), "grow"},
		{"a few copies fit", copyPatch(2), transformtest.ConfigMaps(200, 50), ""},
		// A value set on every object is shared in memory but written out every time.
		{"annotation on every object", "{kind: AnnotationsTransformer, metadata: {name: note}, annotations: {big: " + strings.Repeat("y", 4<<10) + "}}", transformtest.ConfigMaps(100, 10), "note"},
		{"labels on every object", "{kind: LabelTransformer, metadata: {name: tag}, labels: {" + manyLabels(64) + "}}", transformtest.ConfigMaps(100, 10), "tag"},
		{"strategic merge on every object", "{kind: PatchTransformer, metadata: {name: merge}, target: {kind: ConfigMap}, patch: {data: {b: " + strings.Repeat("y", 4<<10) + "}}}", transformtest.ConfigMaps(100, 10), "merge"},
		{"long prefix", "{kind: PrefixSuffixTransformer, metadata: {name: pre}, prefix: " + strings.Repeat("p", 4<<10) + "}", transformtest.ConfigMaps(100, 10), "pre"},
		{"image name", "{kind: ImageTagTransformer, metadata: {name: img}, imageTag: {name: nginx, newName: " + strings.Repeat("i", 4<<10) + "}}", deployments(100), "img"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := compileYAML(t, tc.config)
			out, err := p.Transform(transform.NewContext(context.Background(), budget), tc.objects)
			if tc.fails == "" {
				if err != nil {
					t.Fatal(err)
				}
				if size := objectsSize(out); size > budget {
					t.Fatalf("output of %d bytes passed the budget of %d", size, budget)
				}
				return
			}
			budgetError(t, err, tc.fails)
		})
	}
}

// manyLabels is n labels with values of the longest valid length, as YAML map entries.
func manyLabels(n int) string {
	labels := make([]string, n)
	for i := range labels {
		labels[i] = fmt.Sprintf("l%d: %s", i, strings.Repeat("v", 63))
	}
	return strings.Join(labels, ", ")
}

func deployments(n int) []transform.Object {
	objects := make([]transform.Object, n)
	for i := range objects {
		objects[i] = transform.Object{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": fmt.Sprintf("d%d", i)},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": "c", "image": "nginx:1.25"}}}}}}
	}
	return objects
}

func objectsSize(objects []transform.Object) int {
	n := 0
	for _, obj := range objects {
		n += jsonbytes.EncodedSize(obj, 0)
	}
	return n
}

// TestPatchStopsInsideTheStep shows the budget is checked per patch application, not only
// after the step: the objects after the one that passed it are never patched, so the work
// and the memory stop where the budget does.
func TestPatchStopsInsideTheStep(t *testing.T) {
	objects := transformtest.ConfigMaps(200, 50)
	last := objects[len(objects)-1]
	_, err := compileYAML(t, copyPatch(11)).Transform(transform.NewContext(context.Background(), 256<<10), objects)
	budgetError(t, err, "grow")
	if data := last["data"].(map[string]any); len(data) != 1 {
		t.Fatalf("the last object was patched (%d keys): the step went on past the budget", len(data))
	}
}

// TestJSONPatchBoundedWithinOneApplication: sixteen copies of one 1 KB object would make
// 64 MB in one application; the operations are checked one by one once the patch could pass
// the budget, so it stops at about the budget.
func TestJSONPatchBoundedWithinOneApplication(t *testing.T) {
	objects := transformtest.ConfigMaps(1, 1<<10)
	_, err := compileYAML(t, copyPatch(16)).Transform(transform.NewContext(context.Background(), 128<<10), objects)
	budgetError(t, err, "grow")
	if data := objects[0]["data"].(map[string]any); len(data) != 1 {
		t.Fatalf("the object was changed by a patch that failed")
	}
	// The same patch within budget gives what applying it at once gives.
	small := transformtest.ConfigMaps(1, 10)
	out, err := compileYAML(t, copyPatch(3)).Transform(transform.NewContext(context.Background(), 1<<20), small)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(transformtest.MustYAML(t, out), "xxxxxxxxxx"); n != 8 {
		t.Fatalf("three copies make 8 values, got %d:\n%s", n, transformtest.MustYAML(t, out))
	}
}

// endsAfter is a request that ends after its error has been asked for n times, so that a
// test can end it in the middle of a step without a clock.
type endsAfter struct {
	context.Context
	left atomic.Int64
}

func (c *endsAfter) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestTransformStopsWhenTheRequestEnds: the steps that go through every object ask the
// request between objects, so a client that is gone stops the work mid-step, and the error is
// the request's, not the transformer's.
func TestTransformStopsWhenTheRequestEnds(t *testing.T) {
	for _, config := range []string{
		"{kind: PatchTransformer, target: {kind: ConfigMap}, patch: {data: {b: c}}}",
		"{kind: PatchTransformer, target: {kind: ConfigMap}, patch: [{op: add, path: /data/b, value: c}]}",
		"{kind: AnnotationsTransformer, annotations: {b: c}}",
		"{kind: PrefixSuffixTransformer, prefix: p-}",
	} {
		t.Run(config, func(t *testing.T) {
			request := &endsAfter{Context: context.Background()}
			request.left.Store(10)
			objects := transformtest.ConfigMaps(100, 1)
			_, err := compileYAML(t, config).Transform(transform.NewContext(request, 1<<20), objects)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("want the request's end, got %v", err)
			}
			var terr *transform.Error
			if errors.As(err, &terr) {
				t.Fatalf("the request's end was reported as the transformer's error: %v", err)
			}
			if got := transformtest.MustYAML(t, objects[len(objects)-1:]); strings.Contains(got, "b: c") || strings.Contains(got, "p-") {
				t.Fatalf("the last object was transformed after the request ended:\n%s", got)
			}
		})
	}
}
