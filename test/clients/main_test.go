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

// Package clients drives stencil-apiserver with clients and tools that nobody here wrote, as
// their users run them: Python's dynamic client (Debian's python3-kubernetes, which Ansible's
// k8s module uses), Ruby's kubeclient, Kubernetes' JavaScript client, swagger-parser on the
// OpenAPI documents and ajv on the parameters' JSON Schema. hack/install-client-tools.sh installs them (make clients runs it);
// a test whose tool is missing fails and says what to run.
package clients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/test/localserver"
)

// server serves every test: local mode with OpenShift's group too, so that both groups'
// discovery and OpenAPI are checked.
var server *localserver.Server

// repoRoot is where make runs; tests run in test/clients.
var repoRoot = func() string { abs, _ := filepath.Abs("../.."); return abs }()

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stencil-clients")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binaries, err := localserver.Build(dir, "stencil.dev/stencil/cmd/stencil-apiserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	server, err = localserver.New(binaries[0], filepath.Join(dir, "server"), "--openshift-templates")
	if err == nil {
		err = server.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		fmt.Fprintln(os.Stderr, server.LogTail(1<<14))
		return 1
	}
	code := m.Run()
	if err := server.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the server:", err)
		code = 1
	}
	if code != 0 {
		fmt.Fprintln(os.Stderr, server.LogTail(1<<14))
	}
	return code
}

// tool returns the path of a client tool, or fails the test with what installs it.
func tool(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: run hack/install-client-tools.sh (make clients does)", path)
	}
	return path
}

// nodeModules is where hack/install-client-tools.sh puts the npm packages.
func nodeModules(t *testing.T) string {
	t.Helper()
	return tool(t, filepath.Join(repoRoot, "_output", "clients", "node", "node_modules"))
}

// run runs a client tool and returns what it printed; a failure shows everything it printed.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// node runs a script of test/clients/node with the installed npm packages.
func node(t *testing.T, script string, args ...string) string {
	t.Helper()
	env := []string{"NODE_PATH=" + nodeModules(t)}
	return run(t, env, "node", append([]string{filepath.Join("node", script)}, args...)...)
}

// restClient sends raw requests (JSON bodies, any path) to the server.
func restClient(t *testing.T) rest.Interface {
	t.Helper()
	client, err := discovery.NewDiscoveryClientForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	return client.RESTClient()
}
