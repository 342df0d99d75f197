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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/transform/transformtest"
)

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
// 800 pairs (1,600 objects). Compare stencil-* with kubectl-kustomize of the same run. Beside
// the wall time it reports cpu-ns/op, the child's user+system CPU time, which a shared,
// loaded machine disturbs less than wall time.
func BenchmarkWholeProcess(b *testing.B) {
	dir := b.TempDir()
	var objects []string
	for _, o := range transformtest.Pairs(800) {
		objects = append(objects, string(o))
	}
	template := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"pairs"},"objects":[` +
		strings.Join(objects, ",") + `],"transformers":[` + strings.Join(transformtest.Transformers, ",") + `]}`
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	write("template.json", template)
	write("objects.yaml", strings.Join(objects, "\n---\n"))
	write("kustomization.yaml", transformtest.Kustomization)
	stencil, kubectl := binary(b, "stencil"), binary(b, "kubectl")
	run := func(name string, args ...string) {
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
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
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	run("stencil-yaml", stencil, "process", "--local", "-f", filepath.Join(dir, "template.json"))
	run("stencil-json", stencil, "process", "--local", "-f", filepath.Join(dir, "template.json"), "-o", "json")
	run("kubectl-kustomize", kubectl, "kustomize", dir)
}

// BenchmarkStartup runs the CLI as a new process per iteration for what start-up costs a
// render plugin (Argo CD starts one per render): `stencil version`, and `stencil process
// --local` of a one-object template. Beside the wall time it reports cpu-ns/op (the child's
// user+system CPU time) and peak-rss-bytes (the largest resident set of any run, from the
// kernel's rusage read by a small measuring process: rusage_test.go says why), which
// hack/benchtable holds to their budgets (20 ms, 30 MiB).
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	template := filepath.Join(dir, "one.yaml")
	one := "apiVersion: templates.stencil.dev/v1alpha1\nkind: Template\nmetadata:\n  name: one\n" +
		"parameters:\n- name: NAME\n  value: app\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n" +
		"  metadata:\n    name: ${NAME}\n  data:\n    key: value\n"
	if err := os.WriteFile(template, []byte(one), 0o600); err != nil {
		b.Fatal(err)
	}
	stencil := binary(b, "stencil")
	checkMeasurer(b)
	dropCached(b, stencil)
	run := func(name string, args ...string) {
		b.Run(name, func(b *testing.B) {
			var cpu time.Duration
			var peak int64
			for b.Loop() {
				stdout, used, resident := measure(b, append([]string{stencil}, args...)...)
				if stdout == "" {
					b.Fatalf("stencil %v wrote nothing", args)
				}
				cpu += used
				peak = max(peak, resident)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(peak), "peak-rss-bytes")
		})
	}
	run("version", "version")
	run("process-local", "process", "--local", "-f", template)
}
