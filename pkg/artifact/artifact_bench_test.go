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

package artifact

import (
	"fmt"
	"testing"
)

// BenchmarkBuild packs renders of 100 and 1,000 ConfigMaps and Deployments; archive-bytes is
// what is stored and served, content-bytes the YAML kustomize-controller unpacks.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{100, 1000} {
		objects := make([]Object, 0, n)
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				objects = append(objects, configMap("demo", fmt.Sprintf("settings-%d", i), fmt.Sprintf("value %d of a setting", i)))
				continue
			}
			name := fmt.Sprintf("web-%d", i)
			objects = append(objects, Object{Group: "apps", Kind: "Deployment", Namespace: "demo", Name: name, JSON: fmt.Appendf(nil,
				`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":"demo","labels":{"app":%q}},`+
					`"spec":{"replicas":2,"selector":{"matchLabels":{"app":%q}},"template":{"metadata":{"labels":{"app":%q}},`+
					`"spec":{"containers":[{"name":"web","image":"registry.example/web:1.%d","ports":[{"containerPort":8080}]}]}}}}`,
				name, name, name, name, i)})
		}
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var a *Artifact
			for b.Loop() {
				var err error
				if a, err = Build(objects, DefaultLimits); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(a.Archive)), "archive-bytes")
			b.ReportMetric(float64(a.ContentBytes), "content-bytes")
		})
	}
}
