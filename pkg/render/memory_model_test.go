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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/heaptest"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// TestMemoryModelBoundsProcessing measures what processing holds at its peak on the shapes that
// cost most per byte of output, each near an output limit of 4 MiB, and checks that the
// model's charge for an attempt whose limit is just the output's size covers it. The factors' comments give the
// ratios measured at 64 MiB. What the Kustomization holds is measured per byte of its input,
// near its own limit.
func TestMemoryModelBoundsProcessing(t *testing.T) {
	// The output limit, and a Kustomization's: the ratios are the same at the defaults (64 and
	// 4 MiB), which take longer to measure.
	const limit, kustomizeLimit = 4 << 20, 512 << 10
	label := `{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"l"},"labels":{"x":"y"}}`
	smallObjects := func(n int) []string {
		objects := make([]string, n)
		for i := range objects {
			objects[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","labels":{"a":"b"}},"data":{"a":"b","c":"d","e":"f"}}`, i)
		}
		return objects
	}
	tinyObjects := func(n int) []string {
		objects := make([]string, n)
		for i := range objects {
			objects[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"A","metadata":{"name":"%x"}}`, i)
		}
		return objects
	}
	kustomizeObjects := make([]string, 125)
	for i := range kustomizeObjects {
		data := make([]string, 380)
		for j := range data {
			data[j] = fmt.Sprintf(`"k%d":"v"`, j)
		}
		kustomizeObjects[i] = fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d"},"data":{%s}}`, i, strings.Join(data, ","))
	}
	template := func(transformers []string, objects ...string) *templates.Template {
		return &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Parameters: []templates.Parameter{{Name: "V"}},
			Transformers: raw(transformers...), Objects: raw(objects...)}
	}
	cases := []struct {
		name     string
		template *templates.Template
		value    string
		// near is the least output that measures near a limit: the output limit's, or the
		// Kustomization's own.
		near int
	}{
		{"one large string", bigOutput(2), strings.Repeat("v", 1<<20), limit / 2},
		{"small objects", template(nil, smallObjects(30000)...), "", limit / 2},
		{"as many tiny objects as a template may have", template(nil, tinyObjects(templates.MaxObjects)...), "", limit / 8},
		{"small objects, transformed", template([]string{label}, smallObjects(30000)...), "", limit / 2},
		{"one-digit numbers, transformed", template([]string{label},
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"data":{"a":[`+strings.Repeat("1,", 3<<19)+`1]}}`), "", limit / 2},
		{"empty objects, transformed", template([]string{label},
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"data":{"a":[`+strings.Repeat("{},", 2<<19)+`{}]}}`), "", limit / 2},
		{"a Kustomization at its limit", template([]string{`{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","metadata":{"name":"k"},` +
			`"commonLabels":{"x":"y"},"patches":[{"target":{"kind":"ConfigMap"},"patch":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"any\"},\"data\":{\"x\":\"y\"}}"}]}`},
			kustomizeObjects...), "", kustomizeLimit * 9 / 10},
	}
	r := NewRenderer(Options{Config: Config{MaxOutputBytes: limit, Limits: transform.Limits{KustomizeBytes: kustomizeLimit}}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Template: tc.template, Request: process.Request{Parameters: map[string]string{"V": tc.value}}}
			var out *Output
			peak := heaptest.Peak(func() {
				var errs any
				var err error
				if out, errs, err = r.Render(context.Background(), in); err != nil || out == nil || len(out.Objects) == 0 {
					t.Fatal(err, errs)
				}
			})
			size := 0
			for _, o := range out.Objects {
				size += len(o)
			}
			// The least any attempt that made this output was charged: one whose limit is the
			// output's size.
			charged := r.costOf(plugin.Policy{}.Steps(tc.template), templateBytes(tc.template), false, plugin.Policy{}).at(size)
			t.Logf("output %d KiB, peak %d KiB (%.1f per byte of output), charged %d KiB", size>>10, peak>>10, float64(peak)/float64(size), charged>>10)
			if size < tc.near {
				t.Fatalf("the output is %d bytes: the case does not measure near the limit", size)
			}
			if int64(peak) > charged {
				t.Errorf("processing held %d bytes at its peak, more than the %d its attempt is charged", peak, charged)
			}
		})
	}
}
