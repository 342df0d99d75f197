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

// Package argocd proves the Stencil Config Management Plugin with Argo CD's own code: Argo
// CD's argocd-cmp-server runs the shipped artifacts/argocd/plugin.yaml with the stencil CLI, and
// Argo CD's repository service (argocd-repo-server's gRPC server, in argocd-repo-driver) asks it
// GenerateManifest and GetAppDetails for Applications whose sources are file:// git
// repositories, as Argo CD's application controller and API server ask. Both come from
// hack/build-argocd-binaries.sh (Argo CD v3.6.2 from the module proxy, cached in _output/bin).
package argocd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// repoRoot is the checkout this package lives in.
var repoRoot = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}()

// env is the Argo CD every test uses: one stencil sidecar and one repository service.
var env *argo

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stencil-argocd")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	build := exec.Command(filepath.Join(repoRoot, "hack", "build-argocd-binaries.sh"))
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "argocd: building Argo CD's binaries:", err)
		return 1
	}
	begin := time.Now()
	env, err = startArgo(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "argocd setup:", err)
		if env != nil {
			env.stop()
		}
		return 1
	}
	fmt.Fprintf(os.Stderr, "argocd: sidecar and repository service ready in %v\n", time.Since(begin).Round(time.Millisecond))
	code := m.Run()
	env.stop()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "argocd: the sidecar's log:\n%s\n", env.sidecarLog(4096))
	}
	return code
}
