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

// Package clibench measures whole processes, start-up and files included: the stencil CLI
// processing a template with transformers beside `kubectl kustomize` doing the same to the
// same objects. It needs the binaries of `make build` and `make e2e-binaries` (make bench
// builds both).
package clibench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kustomization is the kustomize side: namePrefix, labels with selectors, an image override
// and one patch of the web Deployments.
const kustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [objects.yaml]
namePrefix: prod-
labels: [{pairs: {team: platform, env: prod}, includeSelectors: true}]
images: [{name: nginx, newName: registry.example.com/nginx, newTag: "1.25.3"}]
patches:
- target: {group: apps, kind: Deployment, name: app-.*, labelSelector: tier=web}
  patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: placeholder}
    spec:
      template:
        spec:
          containers:
          - name: proxy
            image: envoyproxy/envoy:v1.30
            ports: [{containerPort: 9901}]
`

// transformers is the same as the template's transformer list, in kustomize's order.
const transformers = `[{"apiVersion":"builtin","kind":"PatchTransformer","target":{"group":"apps","kind":"Deployment","name":"app-.*","labelSelector":"tier=web"},"patch":{"spec":{"template":{"spec":{"containers":[{"name":"proxy","image":"envoyproxy/envoy:v1.30","ports":[{"containerPort":9901}]}]}}}}},` +
	`{"apiVersion":"builtin","kind":"PrefixSuffixTransformer","prefix":"prod-"},` +
	`{"apiVersion":"builtin","kind":"LabelTransformer","labels":{"team":"platform","env":"prod"}},` +
	`{"apiVersion":"builtin","kind":"ImageTagTransformer","imageTag":{"name":"nginx","newName":"registry.example.com/nginx","newTag":"1.25.3"}}]`

// pairs returns n Deployment+Service pairs as JSON objects; every other Deployment is a web
// one that the patch selects.
func pairs(n int) []string {
	var out []string
	for i := range n {
		tier := "web"
		if i%2 == 1 {
			tier = "worker"
		}
		out = append(out, fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"app-%[1]d","labels":{"app":"app-%[1]d","tier":"%[2]s"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"app-%[1]d"}},"template":{"metadata":{"labels":{"app":"app-%[1]d","tier":"%[2]s"}},"spec":{"containers":[{"name":"main","image":"nginx:1.21","ports":[{"containerPort":8080,"name":"http"}],"env":[{"name":"INDEX","value":"%[1]d"}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}}}}`, i, tier),
			fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"app-%[1]d","labels":{"app":"app-%[1]d"}},"spec":{"selector":{"app":"app-%[1]d"},"ports":[{"port":80,"targetPort":"http"}]}}`, i))
	}
	return out
}

// binary returns the path of a binary under _output/bin, failing when it is not built.
func binary(b *testing.B, name string) string {
	path, err := filepath.Abs(filepath.Join("..", "..", "_output", "bin", name))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		b.Fatalf("%s is not built: run make build e2e-binaries (make bench does): %v", name, err)
	}
	return path
}

// BenchmarkWholeProcess runs each side as a new process per iteration, output to a file, at
// 800 pairs (1,600 objects). Compare stencil-* with kubectl-kustomize of the same run.
func BenchmarkWholeProcess(b *testing.B) {
	dir := b.TempDir()
	objects := pairs(800)
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"pairs"},"objects":[` +
		strings.Join(objects, ",") + `],"transformers":` + transformers + `}`
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	write("template.json", template)
	write("objects.yaml", strings.Join(objects, "\n---\n"))
	write("kustomization.yaml", kustomization)
	stencil, kubectl := binary(b, "stencil"), binary(b, "kubectl")
	run := func(name string, args ...string) {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				out, err := os.Create(filepath.Join(dir, "out"))
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Stdout = out
				var stderr strings.Builder
				cmd.Stderr = &stderr
				err = cmd.Run()
				out.Close()
				if err != nil {
					b.Fatalf("%v: %v\n%s", args, err, stderr.String())
				}
			}
		})
	}
	run("stencil-yaml", stencil, "process", "--local", "-f", filepath.Join(dir, "template.json"))
	run("stencil-json", stencil, "process", "--local", "-f", filepath.Join(dir, "template.json"), "-o", "json")
	run("kubectl-kustomize", kubectl, "kustomize", dir)
}
