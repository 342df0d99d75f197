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

// Package e2e runs Stencil as users will: registered as an APIService in a real kube-apiserver
// on a real etcd, with delegated authentication and authorization, used through a real kubectl.
// The binaries come from hack/build-e2e-binaries.sh (pinned modules, cached in _output/bin).
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// env is the cluster every test uses.
var env *cluster

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	logDir := filepath.Join(repoRoot, "_output", "e2e", time.Now().UTC().Format("20060102-150405"))
	dir, err := os.MkdirTemp("", "stencil-e2e")
	if err == nil {
		err = os.MkdirAll(logDir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)

	env = &cluster{dir: dir, logDir: logDir}
	code := 1
	defer func() {
		env.stop()
		if code == 0 {
			os.RemoveAll(logDir)
		} else {
			fmt.Fprintf(os.Stderr, "e2e: the logs of every process are in %s\n", logDir)
		}
	}()
	if err := setUp(env); err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		return code
	}
	code = m.Run()
	return code
}

func setUp(c *cluster) error {
	for _, script := range []string{"build-e2e-binaries.sh", "build-helm-tools.sh"} {
		build := exec.Command(filepath.Join(repoRoot, "hack", script))
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the e2e binaries (hack/%s): %w", script, err)
		}
	}
	bin := filepath.Join(repoRoot, "_output", "bin")
	c.bin = binaries{
		kubeAPIServer:         filepath.Join(bin, "kube-apiserver"),
		kubeControllerManager: filepath.Join(bin, "kube-controller-manager"),
		kubectl:               filepath.Join(bin, "kubectl"),
		etcd:                  filepath.Join(bin, "etcd"),
		stencilAPIServer:      filepath.Join(c.dir, "bin", "stencil-apiserver"),
		kubectlStencil:        filepath.Join(c.dir, "bin", "kubectl-stencil"),
		helmDriver:            filepath.Join(bin, "helm-driver"),
	}
	for pkg, out := range map[string]string{"./cmd/stencil-apiserver": c.bin.stencilAPIServer, "./cmd/stencil": c.bin.kubectlStencil} {
		cmd := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", out, pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = repoRoot, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", pkg, err)
		}
	}
	if err := printVersions(c.bin); err != nil {
		return err
	}
	if err := c.makePKI(); err != nil {
		return err
	}
	if err := c.startEtcd(); err != nil {
		return err
	}
	if err := c.startKubeAPIServer(); err != nil {
		return err
	}
	return c.deployStencil(filepath.Join(repoRoot, "artifacts", "deploy"), 2)
}

func printVersions(bin binaries) error {
	for _, v := range [][]string{
		{bin.kubeAPIServer, "--version"},
		{bin.kubeControllerManager, "--version"},
		{bin.etcd, "--version"},
		{bin.kubectl, "version", "--client"},
	} {
		out, err := exec.Command(v[0], v[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", v[0], err, out)
		}
		fmt.Printf("e2e: %s: %s\n", filepath.Base(v[0]), strings.Join(strings.Fields(string(out)), " "))
	}
	return nil
}
