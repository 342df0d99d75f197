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

// Package release tests what `make build` and `make image` hand to users: binaries that say
// which build they are, and an image that runs the server as a non-root user with nothing else
// to execute. The tests run the Makefile's own targets into temporary directories.
package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/discovery"

	"stencil.dev/stencil/test/localserver"
)

// testVersion is what the tests stamp; no real build is called this.
const testVersion = "v9.9.9-release-test"

// repoRoot is the checkout this package lives in.
var repoRoot = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}()

// makeTarget runs one Makefile target with variables, as a user would.
func makeTarget(t *testing.T, target string, vars ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory", target}, vars...)...)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// TestBuildStampsVersion builds both binaries with make build and asks each for its version.
func TestBuildStampsVersion(t *testing.T) {
	bin := t.TempDir()
	// The commit is given as make would take it from git, so that the test needs no checkout.
	const commit = "0123456789abcdef0123456789abcdef01234567"
	makeTarget(t, "build", "BIN="+bin, "VERSION="+testVersion, "GIT_COMMIT="+commit)
	for _, args := range [][]string{
		{filepath.Join(bin, "stencil-apiserver"), "--version"},
		{filepath.Join(bin, "stencil"), "version"},
		{filepath.Join(bin, "kubectl-stencil"), "version"},
	} {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		for _, want := range []string{testVersion, "commit " + commit} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s printed %q, without %q", strings.Join(args, " "), out, want)
			}
		}
	}
}

// TestLocalServerVersionIsStamped starts the server make build made in local mode and reads
// /version as kubectl version does: it names the build make stamped. On 3731d16 it said
// v0.0.0-master+$Format:%H$, component-base's unstamped default, whatever make build stamped.
func TestLocalServerVersionIsStamped(t *testing.T) {
	bin := t.TempDir()
	const commit = "89abcdef0123456789abcdef0123456789abcdef"
	makeTarget(t, "build", "BIN="+bin, "VERSION="+testVersion, "GIT_COMMIT="+commit, "GIT_TREE_STATE=clean")
	server, err := localserver.New(filepath.Join(bin, "stencil-apiserver"), filepath.Join(t.TempDir(), "local"))
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatalf("%v\n%s", err, server.LogTail(4096))
	}
	defer func() { _ = server.Stop() }()
	client, err := discovery.NewDiscoveryClientForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	info, err := client.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if info.GitVersion != testVersion || info.GitCommit != commit || info.GitTreeState != "clean" || info.BuildDate == "" {
		t.Errorf("/version says %+v; want %s, commit %s, clean, with a build date", info, testVersion, commit)
	}
	// Major and minor are the Kubernetes API machinery's, which kubectl compares with its own.
	if info.Major != "1" || info.Minor == "" {
		t.Errorf("/version major %q minor %q, want Kubernetes' 1.x", info.Major, info.Minor)
	}
}
