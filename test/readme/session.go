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
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Session is one bash, as the reader's terminal: the commands of every block run in it in
// order, so that what one exports (KUBECONFIG, PATH) and writes (params.json) the next finds.
type Session struct {
	dir     string // the working directory, a checkout of the reader's
	outDir  string // each command's output, one file each
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	markers chan string
	n       int
}

// Result is what one command did.
type Result struct {
	// Output is its stdout and stderr together, as a terminal shows them.
	Output string
	// Code is its exit status.
	Code int
}

// StartSession starts bash in dir with exactly env as its environment. Pipelines fail when
// any of their commands fails (pipefail), so that a failing command before a pipe is seen.
func StartSession(dir string, env []string) (*Session, error) {
	outDir, err := os.MkdirTemp("", "readme-outputs")
	if err != nil {
		return nil, err
	}
	s := &Session{dir: dir, outDir: outDir, markers: make(chan string, 1)}
	s.cmd = exec.Command("bash", "--noprofile", "--norc")
	s.cmd.Dir, s.cmd.Env = dir, env
	// Its own process group, so that a command that hangs is stopped with its children.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.cmd.Stderr = os.Stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	// bash's own stdout carries only the end markers; the commands write to files.
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if line := scanner.Text(); strings.HasPrefix(line, "::done ") {
				s.markers <- strings.TrimPrefix(line, "::done ")
			}
		}
		close(s.markers)
	}()
	_, err = io.WriteString(s.stdin, "set -o pipefail\n")
	return s, err
}

// Run runs one command as the reader would paste it and waits for it, at most timeout. Its
// stdin is /dev/null unless it reads a here-document: bash reads the session's script from
// its own stdin, which a command must not swallow.
func (s *Session) Run(c Command, timeout time.Duration) (Result, error) {
	s.n++
	out := filepath.Join(s.outDir, strconv.Itoa(s.n))
	script := fmt.Sprintf("{ %s\n} >%q 2>&1 </dev/null; echo \"::done $?\"\n", c.Text, out)
	if _, err := io.WriteString(s.stdin, script); err != nil {
		return Result{}, err
	}
	select {
	case code, ok := <-s.markers:
		if !ok {
			return Result{}, fmt.Errorf("bash exited while running line %d", c.Line)
		}
		output, err := os.ReadFile(out)
		if err != nil {
			return Result{}, err
		}
		n, err := strconv.Atoi(code)
		return Result{Output: string(output), Code: n}, err
	case <-time.After(timeout):
		s.Close()
		output, _ := os.ReadFile(out)
		return Result{Output: string(output), Code: -1}, fmt.Errorf("line %d did not finish within %v", c.Line, timeout)
	}
}

// Close stops bash and everything it started, and removes the outputs.
func (s *Session) Close() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		_ = s.cmd.Wait()
	}
	os.RemoveAll(s.outDir)
}
