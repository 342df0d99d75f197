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

// Package localserver runs stencil-apiserver in local mode for the suites that drive the real
// binary as users do (integration, reliability, the catalog UI): it builds the binaries, starts
// a server on a free loopback port with its data and log in one directory, waits until it is
// ready, and stops it with SIGINT as Ctrl-C does, or kills it with SIGKILL.
package localserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"stencil.dev/stencil/pkg/netutil"
)

// Build builds each command of the module, named by its package path, into dir and returns
// the binaries' paths in the same order.
func Build(dir string, packages ...string) ([]string, error) {
	paths := make([]string, len(packages))
	for i, pkg := range packages {
		paths[i] = filepath.Join(dir, filepath.Base(pkg))
		build := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", paths[i], pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("building %s: %v", pkg, err)
		}
	}
	return paths, nil
}

// Server is one stencil-apiserver process in local mode.
type Server struct {
	// Dir holds the server's data, its kubeconfig and its log, server.log.
	Dir string
	// Config reaches the server as the user of its kubeconfig; set once the server is ready.
	Config *rest.Config
	// Ready is how long the last start took until /readyz answered ok.
	Ready time.Duration
	// Env is added to the test's environment for the process (GOMEMLIMIT, as a Deployment
	// sets it); set it before Start.
	Env []string
	// Cgroup, when set before Start, is the memory cgroup the process runs in, as a
	// container's processes do.
	Cgroup *Cgroup

	binary  string
	args    []string
	cmd     *exec.Cmd
	logFile *os.File
	exited  chan error
}

// New prepares a server of binary with its data in dir and extra flags. Its port is chosen
// here, once, so that a server started again after a kill answers where it did.
func New(binary, dir string, flags ...string) (*Server, error) {
	ports, err := netutil.FreeLoopbackPorts(1)
	if err != nil {
		return nil, err
	}
	args := append([]string{"--local", "--local-dir", dir, "--secure-port", strconv.Itoa(ports[0])}, flags...)
	return &Server{Dir: dir, binary: binary, args: args}, nil
}

// Start starts the process, again after a kill, and waits until it answers /readyz.
func (s *Server) Start() error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.LogPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s.logFile = logFile
	s.cmd = exec.Command(s.binary, s.args...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if len(s.Env) > 0 {
		s.cmd.Env = append(os.Environ(), s.Env...)
	}
	if s.Cgroup != nil && s.Cgroup.V2 {
		// Started in it (CLONE_INTO_CGROUP): nothing of it runs outside.
		dir, err := os.Open(s.Cgroup.Dir)
		if err != nil {
			logFile.Close()
			return err
		}
		defer dir.Close()
		s.cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd())}
	}
	begin := time.Now()
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	if s.Cgroup != nil && !s.Cgroup.V2 {
		// Moved into it at once, before it has done more than start its runtime.
		if err := s.Cgroup.Add(s.cmd.Process.Pid); err != nil {
			_ = s.cmd.Process.Kill()
			logFile.Close()
			return fmt.Errorf("moving the server into its cgroup: %w", err)
		}
	}
	s.exited = make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan error) { exited <- cmd.Wait() }(s.cmd, s.exited)
	if err := s.waitReady(); err != nil {
		_ = s.Kill()
		return err
	}
	s.Ready = time.Since(begin)
	return nil
}

// waitReady polls /readyz with the kubeconfig the server writes, until it answers ok, the
// process exits or a minute has passed.
func (s *Server) waitReady() error {
	return wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true,
		func(ctx context.Context) (bool, error) {
			select {
			case err := <-s.exited:
				s.exited <- err
				return false, fmt.Errorf("server exited early: %v", err)
			default:
			}
			config, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig())
			if err != nil {
				return false, nil
			}
			client, err := discovery.NewDiscoveryClientForConfig(config)
			if err != nil {
				return false, nil
			}
			body, err := client.RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			if err != nil || string(body) != "ok" {
				return false, nil
			}
			s.Config = config
			return true, nil
		})
}

// Kubeconfig is the path of the kubeconfig the server writes for its admin.
func (s *Server) Kubeconfig() string { return filepath.Join(s.Dir, "kubeconfig") }

// LogPath is the path of the server's log.
func (s *Server) LogPath() string { return filepath.Join(s.Dir, "server.log") }

// Pid is the process id of the running server.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Exited returns how the process ended, or nil while it runs.
func (s *Server) Exited() error {
	select {
	case err := <-s.exited:
		s.exited <- err
		if err == nil {
			return errors.New("exited with status 0")
		}
		return err
	default:
		return nil
	}
}

// LogTail returns the last n bytes of the server's log, for a failed test to show.
func (s *Server) LogTail(n int) string {
	log, err := os.ReadFile(s.LogPath())
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	if len(log) > n {
		log = log[len(log)-n:]
	}
	return string(log)
}

// Stop sends SIGINT, as Ctrl-C does, and waits for the process to exit; a server that exits
// with an error, or not within a minute, is an error.
func (s *Server) Stop() error {
	if s.cmd == nil || s.cmd.ProcessState != nil {
		return nil
	}
	defer s.logFile.Close()
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-s.exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("server exited with %v after SIGINT", err)
		}
		return err
	case <-time.After(time.Minute):
		_ = s.cmd.Process.Kill()
		return fmt.Errorf("server did not stop within a minute of SIGINT")
	}
}

// Kill sends SIGKILL, as the kernel's OOM killer or a node failure would, and waits for the
// process to be gone.
func (s *Server) Kill() error {
	if s.cmd == nil || s.cmd.ProcessState != nil {
		return nil
	}
	defer s.logFile.Close()
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-s.exited:
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("server still running a minute after SIGKILL")
	}
}
