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

package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CommandTimeout bounds one command of the tour; stencil instantiate --wait is the slowest.
const CommandTimeout = 3 * time.Minute

// Checkout is the reader's view of the repository: a directory whose artifacts/ and
// _output/bin are the repository's, whose _output/local is the server's, and where the tour
// writes its files (params.json, mysql.yaml, out/) without touching the repository.
type Checkout struct {
	// Dir is the working directory of the tour.
	Dir string
	// Home is $HOME: kubectl's discovery cache, and ~/.kube/config when a test gives one.
	Home string
	// Bin is the directory of kubectl, alone, on PATH from the start, as a reader's kubectl is.
	Bin string
}

// NewCheckout makes a checkout of repo under dir. kubectl is the real one that
// hack/build-e2e-binaries.sh builds into _output/bin; stencil is not on PATH until the README
// puts _output/bin there.
func NewCheckout(repo, dir string) (*Checkout, error) {
	c := &Checkout{Dir: filepath.Join(dir, "checkout"), Home: filepath.Join(dir, "home"), Bin: filepath.Join(dir, "kubectl-bin")}
	kubectl := filepath.Join(repo, "_output", "bin", "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		return nil, fmt.Errorf("%v: build it with make e2e-binaries (make tour and make e2e do)", err)
	}
	for _, d := range []string{filepath.Join(c.Dir, "_output"), c.Home, c.Bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for link, target := range map[string]string{
		filepath.Join(c.Dir, "artifacts"):      filepath.Join(repo, "artifacts"),
		filepath.Join(c.Dir, "_output", "bin"): filepath.Join(repo, "_output", "bin"),
		filepath.Join(c.Bin, "kubectl"):        kubectl,
	} {
		if err := os.Symlink(target, link); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// LocalDir is where the local server keeps its data and writes its kubeconfig, as make run's
// _output/local.
func (c *Checkout) LocalDir() string { return filepath.Join(c.Dir, "_output", "local") }

// Env is the tour's environment: a HOME of its own, kubectl on PATH before the system's
// directories (those that hold a stencil are left out), and no KUBECONFIG.
func (c *Checkout) Env() []string {
	path := []string{c.Bin}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "stencil")); err == nil || d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "kubectl-stencil")); err == nil {
			continue
		}
		path = append(path, d)
	}
	return []string{"HOME=" + c.Home, "PATH=" + strings.Join(path, string(os.PathListSeparator)), "LANG=C.UTF-8", "TERM=dumb"}
}

// ServerBlock returns the one `sh server` block's command.
func ServerBlock(blocks []Block) (Command, error) {
	var found []Command
	for _, b := range blocks {
		if b.Kind == Server {
			found = append(found, b.Commands...)
		}
	}
	if len(found) != 1 {
		return Command{}, fmt.Errorf("the README has %d commands in sh server blocks, want one (make run ...)", len(found))
	}
	return found[0], nil
}

// RunBlocks runs the commands of the blocks of these kinds in order in s, and fails the test
// at the first that exits non-zero without documenting an error, or whose output is not what
// the README documents: the later commands depend on it. With STENCIL_README_SHOW set, it logs
// every command's output, for writing the README.
func RunBlocks(t testing.TB, s *Session, blocks []Block, kinds ...Kind) {
	t.Helper()
	ran := 0
	for _, b := range blocks {
		if !contains(kinds, b.Kind) {
			continue
		}
		for _, c := range b.Commands {
			res, err := s.Run(c, CommandTimeout)
			if err != nil {
				t.Fatalf("README.md:%d: %v\n$ %s\n%s", c.Line, err, c.Text, res.Output)
			}
			ran++
			if os.Getenv("STENCIL_README_SHOW") != "" {
				t.Logf("README.md:%d: exit %d\n$ %s\n%s", c.Line, res.Code, c.Text, res.Output)
			}
			switch {
			case c.Want == nil && res.Code != 0:
				t.Fatalf("README.md:%d: exit %d\n$ %s\n%s", c.Line, res.Code, c.Text, res.Output)
			case c.Want != nil && !Match(c.Want, res.Output):
				t.Fatalf("README.md:%d: the output is not what the README shows (exit %d)\n$ %s\n--- README:\n%s\n--- printed:\n%s",
					c.Line, res.Code, c.Text, strings.Join(c.Want, "\n"), res.Output)
			}
		}
	}
	t.Logf("%d commands of the README's %v blocks ran as documented", ran, kinds)
}

func contains(kinds []Kind, k Kind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}
