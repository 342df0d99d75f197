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

package kustomize

import (
	"fmt"
	"io"
	"log"
	"os"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
	"strings"
	"sync"
	"testing"
)

func TestKustomizationTransformer(t *testing.T) {
	transformtest.RunCases(t, testKinds, []transformtest.Case{{
		Name: "builds over the objects, generators included",
		Config: `
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
metadata: {name: kz}
namePrefix: p-
commonLabels: {app: web}
images: [{name: nginx, newTag: "1.25"}]
configMapGenerator: [{name: cfg, literals: [A=1]}]
replicas: [{name: web, count: 3}]
`,
		In: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: c, image: nginx, envFrom: [{configMapRef: {name: cfg}}]}]
`,
		Want: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: p-web, labels: {app: web}}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: "nginx:1.25", envFrom: [{configMapRef: {name: p-cfg-89g4tffbfk}}]}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: p-cfg-89g4tffbfk, labels: {app: web}}
data: {A: "1"}
`,
		Warning: "'commonLabels' is deprecated",
	}, {
		Name:   "numbers keep their precision",
		Config: "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namespace: x}",
		In:     "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f}, spec: {n: 123456789012345678901234567890, f: 1.5, s: '010', b: true, z: null}}",
		Want:   "{apiVersion: example.com/v1, kind: Foo, metadata: {name: f, namespace: x}, spec: {n: 123456789012345678901234567890, f: 1.5, s: '010', b: true, z: null}}",
	}, {
		Name:   "sortOptions",
		Config: "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, sortOptions: {order: legacy}}",
		In:     "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n---\n{apiVersion: v1, kind: Namespace, metadata: {name: n}}",
		Want:   "{apiVersion: v1, kind: Namespace, metadata: {name: n}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
	}, {
		Name:    "remote resources are refused",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, resources: [https://github.com/x/y]}",
		WantErr: "transformers[0].resources",
	}, {
		Name:    "plugins are refused",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, transformers: [plugin.yaml]}",
		WantErr: "transformers[0].transformers",
	}, {
		Name:    "helm is refused",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, helmCharts: [{name: x}]}",
		WantErr: "transformers[0].helmCharts",
	}, {
		Name:    "files are refused",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, configMapGenerator: [{name: c, files: [a.txt]}], patches: [{path: p.yaml}]}",
		WantErr: "transformers[0].configMapGenerator[0].files",
	}, {
		Name:    "openapi is refused",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, openapi: {version: v1.20.4}}",
		WantErr: "transformers[0].openapi",
	}, {
		Name:    "unknown field",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namePrefx: p-}",
		WantErr: "transformers[0].namePrefx",
	}, {
		Name:    "kustomize errors are returned",
		Config:  "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, patches: [{patch: '{\"kind\": \"Deployment\", \"metadata\": {\"name\": \"missing\"}}'}]}",
		In:      "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
		WantErr: "kustomize:",
	}})
}

// TestKustomizationConcurrent runs builds of different kustomizations in parallel, more of
// them than there are slots: run with -race, it shows that concurrent builds share no state
// that is written (see warmKustomize), with strategic merges that read Kustomize's schema and
// namespaces that read its table of namespaced kinds.
func TestKustomizationConcurrent(t *testing.T) {
	configs := []string{
		"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namePrefix: p-, labels: [{pairs: {a: b}, includeSelectors: true}]}",
		"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namespace: ns, images: [{name: nginx, newTag: '1.27'}], replicas: [{name: web, count: 2}]}",
		"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, patches: [{patch: '{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {template: {spec: {containers: [{name: side, image: envoy}]}}}}'}]}",
		"{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, commonAnnotations: {x: z}, configMapGenerator: [{name: cfg, literals: [A=1]}], replacements: [{source: {kind: ConfigMap, name: c, fieldPath: metadata.name}, targets: [{select: {kind: Deployment}, fieldPaths: [metadata.annotations.cm], options: {create: true}}]}]}",
	}
	var transformers []transform.Transformer
	for _, c := range configs {
		tr, errs := transformtest.NewTransformer(t, testKinds, c)
		if len(errs) > 0 {
			t.Fatal(errs.ToAggregate())
		}
		transformers = append(transformers, tr)
	}
	const objects = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`
	var wg sync.WaitGroup
	errc := make(chan error, 4*len(transformers))
	for i := range 4 * len(transformers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := transformers[i%len(transformers)].Transform(&transform.Context{}, transformtest.YAMLDocs(t, objects))
			if err == nil && len(out) < 4 {
				err = fmt.Errorf("unexpected output %v", out)
			}
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestKustomizationPrintsNothing(t *testing.T) {
	// Deprecated fields become warnings instead of lines on os.Stderr.
	tr, errs := transformtest.NewTransformer(t, testKinds, "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, sortOptions: {order: fifo}, imageTags: [{name: a, newTag: b}], patchesStrategicMerge: ['{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {x: z}}']}")
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	ctx := &transform.Context{}
	// The test swaps os.Stderr, which only tests may do: the transformer itself never does.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	log.SetOutput(w)
	out, err := tr.Transform(ctx, transformtest.YAMLDocs(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}"))
	os.Stderr = stderr
	log.SetOutput(stderr)
	w.Close()
	printed, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(printed) > 0 {
		t.Errorf("kustomize printed %q", printed)
	}
	transformtest.AssertObjects(t, out, transformtest.YAMLDocs(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {x: z}}"))
	if w := strings.Join(ctx.Warnings(), "\n"); !strings.Contains(w, "imageTags") || !strings.Contains(w, "patchesStrategicMerge") {
		t.Errorf("warnings: %q", ctx.Warnings())
	}
}
