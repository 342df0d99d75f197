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

package publish

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"stencil.dev/stencil/pkg/artifact"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
)

// thousandObjects is a template that renders n ConfigMaps and n Services from two objects and
// a list of n items.
func thousandObjects(b *testing.B, n int) (*render.Renderer, render.Input) {
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i)
	}
	raw := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"fleet","namespace":"demo"},
"parameters":[{"name":"ITEMS","type":"json","value":"[]"},{"name":"GREETING","value":"hello"}],
"objects":[
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings-${INDEX}","annotations":{"templates.stencil.dev/for-each":"params.ITEMS"}},
  "data":{"greeting":"${GREETING} from ${ITEM}","mode":"production"}},
 {"apiVersion":"v1","kind":"Service","metadata":{"name":"web-${INDEX}","annotations":{"templates.stencil.dev/for-each":"params.ITEMS"}},
  "spec":{"selector":{"app":"web-${ITEM}"},"ports":[{"port":80,"targetPort":8080}]}}]}`
	t, _, err := process.DecodeTemplate([]byte(raw))
	if err != nil {
		b.Fatal(err)
	}
	in := render.Input{Template: t, Request: process.Request{Parameters: map[string]string{"ITEMS": "[" + strings.Join(items, ",") + "]"}}}
	return render.NewRenderer(render.Options{}), in
}

// renderAndPack is what a pass of a published instance does from the render to the artifact:
// render, decode each object, pack.
func renderAndPack(b *testing.B, r *render.Renderer, in render.Input) *artifact.Artifact {
	out, errs, err := r.Render(context.Background(), in)
	if err != nil || len(errs) > 0 {
		b.Fatal(err, errs)
	}
	objects := make([]*unstructured.Unstructured, len(out.Objects))
	for i, raw := range out.Objects {
		objects[i] = &unstructured.Unstructured{}
		if err := objects[i].UnmarshalJSON(raw); err != nil {
			b.Fatal(err)
		}
		objects[i].SetNamespace("demo")
	}
	a, _, err := Pack(objects, artifact.DefaultLimits)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// BenchmarkPublishRender renders a 1,000-object template and packs it, as a published
// instance's pass does, and fails unless every iteration gives the first one's digest (run
// with -benchtime 100x: the same digest across 100 renders of unchanged inputs). The pack
// alone is reported beside it, with the artifact's size.
func BenchmarkPublishRender(b *testing.B) {
	const n = 500 // items: 1,000 objects
	r, in := thousandObjects(b, n)
	b.Run("render+pack/objects=1000", func(b *testing.B) {
		b.ReportAllocs()
		var digest string
		var size, renders int
		for b.Loop() {
			a := renderAndPack(b, r, in)
			if digest == "" {
				digest, size = a.Digest, len(a.Archive)
			} else if a.Digest != digest {
				b.Fatalf("render %d gave %s, the first %s", renders+1, a.Digest, digest)
			}
			renders++
		}
		b.ReportMetric(float64(size), "archive-bytes")
		b.ReportMetric(float64(renders), "renders-same-digest")
	})
	b.Run("pack/objects=1000", func(b *testing.B) {
		out, _, err := r.Render(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		objects := make([]*unstructured.Unstructured, len(out.Objects))
		for i, raw := range out.Objects {
			objects[i] = &unstructured.Unstructured{}
			if err := objects[i].UnmarshalJSON(raw); err != nil {
				b.Fatal(err)
			}
		}
		if len(objects) != 2*n {
			b.Fatalf("%d objects", len(objects))
		}
		b.ReportAllocs()
		var a *artifact.Artifact
		for b.Loop() {
			if a, _, err = Pack(objects, artifact.DefaultLimits); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(a.Archive)), "archive-bytes")
		b.ReportMetric(float64(a.ContentBytes), "content-bytes")
	})
}
