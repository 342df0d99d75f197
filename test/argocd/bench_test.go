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

package argocd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchTemplate is the template of 200 objects of pkg/gitops's BenchmarkRender.
func benchTemplate() (string, error) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "pkg", "gitops", "testdata", "bench-200", "template.yaml"))
	return string(data), err
}

// shPlugin is the trivial plugin of the baseline: it prints a file of the repository, the
// very output the stencil plugin gives for the same application, so that Argo CD carries,
// parses and marks the same objects; all it does not do is render.
const shPlugin = `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: sh
spec:
  version: v1
  generate:
    command: [sh, -c, cat rendered.json]
`

var benchSetup struct {
	once sync.Once
	app  app
	err  error
}

// benchApp is the application of the benchmarks: the template, its render file, and the
// stencil plugin's output for it (what the sh plugin prints); and the sh sidecar.
func benchApp(b *testing.B) app {
	benchSetup.once.Do(func() {
		dir := filepath.Join(env.dir, "bench")
		var template string
		if template, benchSetup.err = benchTemplate(); benchSetup.err != nil {
			return
		}
		files := map[string]string{"bench/template.yaml": template, "bench/stencil-render.yaml": renderFile("bench", "template.yaml", nil, "")}
		for name, content := range files {
			_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if benchSetup.err = os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); benchSetup.err != nil {
				return
			}
		}
		render := exec.Command(filepath.Join(env.bin, "stencil"), "argocd", "generate")
		render.Dir, render.Env = filepath.Join(dir, "bench"), env.environ()
		out, err := render.Output()
		if err != nil {
			benchSetup.err = fmt.Errorf("rendering the benchmark's template: %v", err)
			return
		}
		files["bench/rendered.json"] = string(out)
		config := filepath.Join(env.dir, "sh-plugin")
		_ = os.MkdirAll(config, 0o755)
		if benchSetup.err = os.WriteFile(filepath.Join(config, "plugin.yaml"), []byte(shPlugin), 0o644); benchSetup.err != nil {
			return
		}
		if _, benchSetup.err = env.startSidecar("sh-v1", config, nil); benchSetup.err != nil {
			return
		}
		repo, sha := newRepoAt(b, filepath.Join(env.dir, "bench-repo"), files)
		benchSetup.app = app{name: "bench", repo: repo, revision: sha, path: "bench"}
	})
	if benchSetup.err != nil {
		b.Fatal(benchSetup.err)
	}
	return benchSetup.app
}

// BenchmarkArgoCDGenerateManifest asks Argo CD's repository service for the manifests of a
// 200-object application rendered by the stencil sidecar, and the same application printed
// by a trivial sh plugin (the transport floor: Argo CD's checkout, tarball, gRPC, parsing),
// every call a hard refresh. It reports the median and the 95th percentile of each; the
// target is a p95 within 300 ms of the sh plugin's (docs/performance.md).
func BenchmarkArgoCDGenerateManifest(b *testing.B) {
	base := benchApp(b)
	for _, plugin := range []string{"sh", "stencil"} {
		b.Run(plugin, func(b *testing.B) {
			a := base
			a.plugin = &pluginSource{Name: plugin + "-v1"}
			a.generate() // a warm checkout, as Argo CD keeps one
			req := a.request("generate")
			req.Repeat = b.N
			b.ResetTimer()
			res := env.driver.ask(req)
			b.StopTimer()
			if res.Error != "" || len(res.Manifests) != 200 {
				b.Fatalf("%d manifests, %s", len(res.Manifests), res.Error)
			}
			sorted := slices.Clone(res.Nanos)
			slices.Sort(sorted)
			b.ReportMetric(float64(sorted[len(sorted)/2]), "p50-ns/op")
			b.ReportMetric(float64(sorted[(len(sorted)*95+99)/100-1]), "p95-ns/op")
		})
	}
}

// BenchmarkArgoCDRenderCPU runs the plugin's generate command (stencil argocd generate) on the
// 200-object application as argocd-cmp-server does, a new process each time, and reports the
// user+system CPU time of the whole process: start-up, reading, rendering and writing.
func BenchmarkArgoCDRenderCPU(b *testing.B) {
	a := benchApp(b)
	dir := filepath.Join(a.repo.dir, a.path)
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(filepath.Join(env.bin, "stencil"), "argocd", "generate")
		cmd.Dir, cmd.Env = dir, env.environ()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu += time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
