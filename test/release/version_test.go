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

package release

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"stencil.dev/stencil/test/localserver"
)

// git runs git in dir, as a user with a name.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestVersionScript runs hack/version.sh, which make build stamps the binaries with, in a
// checkout at each point of a project's life: every answer is a semantic version kubectl reads,
// as Kubernetes' own hack/lib/version.sh writes them. Before, the Makefile stamped `git
// describe --tags --always --dirty`, which in a checkout without tags is a bare commit
// ("7189217"), and kubectl version failed with `illegal version string "7189217"`.
func TestVersionScript(t *testing.T) {
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join(repoRoot, "hack", "version.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "hack"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hack", "version.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	version := func() string {
		out, err := exec.Command(filepath.Join(dir, "hack", "version.sh")).CombinedOutput()
		if err != nil {
			t.Fatalf("hack/version.sh: %v\n%s", err, out)
		}
		v := strings.TrimSpace(string(out))
		if _, err := utilversion.ParseSemantic(v); err != nil {
			t.Errorf("hack/version.sh says %q, which kubectl cannot read: %v", v, err)
		}
		return v
	}
	commit := func(name string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", name)
		return git(t, dir, "rev-parse", "--short=14", "HEAD")
	}
	if v := version(); v != "v0.0.0-unknown" {
		t.Errorf("outside a checkout: %q", v)
	}
	git(t, dir, "init", "-q")
	first := commit("a")
	steps := []struct {
		what, want string
		do         func()
	}{
		{"no tag", "v0.0.0-master+" + first, func() {}},
		{"untracked file", "v0.0.0-master+" + first + "-dirty", func() { _ = os.WriteFile(filepath.Join(dir, "new"), nil, 0o644) }},
		{"tagged", "v0.3.0", func() { _ = os.Remove(filepath.Join(dir, "new")); git(t, dir, "tag", "v0.3.0") }},
		{"a tag that is not a version", "v0.3.0", func() { git(t, dir, "tag", "latest") }},
		{"two commits after the tag", "v0.3.0-2+", func() { commit("b"); commit("c") }},
		{"a pre-release tag and a commit", "v0.4.0-alpha.1.1+", func() { git(t, dir, "tag", "v0.4.0-alpha.1"); commit("d") }},
	}
	for _, s := range steps {
		s.do()
		got := version()
		if strings.HasSuffix(s.want, "+") {
			s.want += git(t, dir, "rev-parse", "--short=14", "HEAD")
		}
		if got != s.want {
			t.Errorf("%s: hack/version.sh says %q, want %q", s.what, got, s.want)
		}
	}
}

// TestKubectlVersion builds the binaries with make build as a user does, versions stamped from
// this checkout, starts the server in local mode and runs the real kubectl version against it:
// it succeeds and shows the server's version as hack/version.sh wrote it.
func TestKubectlVersion(t *testing.T) {
	kubectl := filepath.Join(repoRoot, "_output", "bin", "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("no kubectl in _output/bin (make e2e-binaries builds it; make release does first): %v", err)
	}
	bin := t.TempDir()
	makeTarget(t, "build", "BIN="+bin)
	out, err := exec.Command(filepath.Join(repoRoot, "hack", "version.sh")).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(out))
	server, err := localserver.New(filepath.Join(bin, "stencil-apiserver"), filepath.Join(t.TempDir(), "local"))
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatalf("%v\n%s", err, server.LogTail(4096))
	}
	defer func() { _ = server.Stop() }()
	cmd := exec.Command(kubectl, "version", "-o", "json")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+server.Kubeconfig())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl version: %v\n%s%s", err, stdout, stderr.String())
	}
	var versions struct {
		Server struct {
			GitVersion string `json:"gitVersion"`
		} `json:"serverVersion"`
	}
	if err := json.Unmarshal(stdout, &versions); err != nil {
		t.Fatalf("kubectl version -o json: %v\n%s", err, stdout)
	}
	if versions.Server.GitVersion != want {
		t.Errorf("kubectl version shows the server as %q, want %q (hack/version.sh)", versions.Server.GitVersion, want)
	}
	// The plain output too: kubectl compares the versions for its skew warning, which is where
	// it parsed the server's and failed.
	cmd = exec.Command(kubectl, "version")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+server.Kubeconfig())
	plain, err := cmd.CombinedOutput()
	if err != nil || regexp.MustCompile(`illegal version|error`).Match(plain) || !strings.Contains(string(plain), "Server Version: "+want) {
		t.Errorf("kubectl version: %v\n%s", err, plain)
	}
}
