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

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// process is one binary the suite runs, with its output in <logDir>/<name>.log.
type process struct {
	name string
	args []string
	// env, when set, is added to the suite's environment.
	env    []string
	binary string
	cmd    *exec.Cmd
	log    *os.File
	exited chan error
}

func startProcess(logDir, name, binary string, args ...string) (*process, error) {
	p := &process{name: name, binary: binary, args: args}
	return p, p.start(logDir)
}

func (p *process) start(logDir string) error {
	log, err := os.OpenFile(filepath.Join(logDir, p.name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "\n=== %s %s\n", p.binary, strings.Join(p.args, " "))
	cmd := exec.Command(p.binary, p.args...)
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	cmd.Stdout, cmd.Stderr = log, log
	// A process group of its own, so that nothing outlives the suite.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	p.cmd, p.log, p.exited = cmd, log, make(chan error, 1)
	go func() { p.exited <- cmd.Wait() }()
	return nil
}

// alive reports an early exit as an error.
func (p *process) alive() error {
	select {
	case err := <-p.exited:
		p.exited <- err
		return fmt.Errorf("%s exited: %v (see %s)", p.name, err, p.log.Name())
	default:
		return nil
	}
}

// stop ends the process with SIGTERM, then SIGKILL after a grace period.
func (p *process) stop() {
	if p.cmd == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
	p.log.Close()
	p.cmd = nil
}

// kill ends the process at once, as a crashed node would.
func (p *process) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
	p.log.Close()
	p.cmd = nil
}

// waitFor polls cond until it holds or the timeout passes, failing early when a process dies.
func waitFor(timeout time.Duration, what string, cond func(context.Context) error, watched ...*process) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		for _, p := range watched {
			if err := p.alive(); err != nil {
				return err
			}
		}
		if last = cond(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not within %s: %v", what, timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
