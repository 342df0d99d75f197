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

// Package integration tests stencil-apiserver as users run it: the real binary in local mode,
// with its embedded etcd, reached through the generated clientset.
package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/netutil"
)

// serverBinary and cliBinary are built once by TestMain.
var serverBinary, cliBinary string

// shared serves the tests that do not restart their server.
var shared *localServer

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stencil-integration")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBinary, cliBinary = filepath.Join(dir, "stencil-apiserver"), filepath.Join(dir, "stencil")
	for pkg, out := range map[string]string{"stencil.dev/stencil/cmd/stencil-apiserver": serverBinary, "stencil.dev/stencil/cmd/stencil": cliBinary} {
		build := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", out, pkg)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n", pkg, err)
			return 1
		}
	}
	sharedDir := filepath.Join(dir, "shared")
	if shared, err = startLocalServer(sharedDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		dumpLog(sharedDir)
		return 1
	}
	code := m.Run()
	if err := shared.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the shared server:", err)
		code = 1
	}
	if code != 0 {
		dumpLog(sharedDir)
	}
	return code
}

func dumpLog(dir string) {
	if log, err := os.ReadFile(filepath.Join(dir, "server.log")); err == nil {
		fmt.Fprintf(os.Stderr, "server log of %s:\n%s\n", dir, log)
	}
}

// localServer is one stencil-apiserver process in local mode.
type localServer struct {
	dir     string
	cmd     *exec.Cmd
	logFile *os.File
	exited  chan error
	config  *rest.Config
}

// startLocalServer starts a server on a free port with its data in dir and extra flags, and
// waits until it answers /readyz.
func startLocalServer(dir string, flags ...string) (*localServer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ports, err := netutil.FreeLoopbackPorts(1)
	if err != nil {
		return nil, err
	}
	port := ports[0]
	logFile, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(serverBinary, append([]string{"--local", "--local-dir", dir, "--secure-port", strconv.Itoa(port)}, flags...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	s := &localServer{dir: dir, cmd: cmd, logFile: logFile, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	if err := s.waitReady(); err != nil {
		_ = s.stop()
		return nil, err
	}
	return s, nil
}

// startTestServer starts a server of its own for one test and stops it when the test ends.
func startTestServer(t *testing.T, dir string, flags ...string) *localServer {
	t.Helper()
	s, err := startLocalServer(dir, flags...)
	if err != nil {
		dumpLog(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.stop()
		if t.Failed() {
			dumpLog(dir)
		}
	})
	return s
}

func (s *localServer) waitReady() error {
	kubeconfig := filepath.Join(s.dir, "kubeconfig")
	return wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true,
		func(ctx context.Context) (bool, error) {
			select {
			case err := <-s.exited:
				s.exited <- err
				return false, fmt.Errorf("server exited early: %v", err)
			default:
			}
			config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return false, nil
			}
			cs, err := clientset.NewForConfig(config)
			if err != nil {
				return false, nil
			}
			body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			if err != nil || string(body) != "ok" {
				return false, nil
			}
			config.QPS, config.Burst = 1000, 1000
			s.config = config
			return true, nil
		})
}

// stop sends SIGINT, as Ctrl-C does, and waits for the process to exit.
func (s *localServer) stop() error {
	if s.cmd.ProcessState != nil {
		return nil
	}
	defer s.logFile.Close()
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-s.exited:
		return err
	case <-time.After(time.Minute):
		_ = s.cmd.Process.Kill()
		return fmt.Errorf("server did not stop within a minute of SIGINT")
	}
}

func (s *localServer) client(t testing.TB) clientset.Interface {
	t.Helper()
	cs, err := clientset.NewForConfig(s.config)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// clientFor is a client of the shared server.
func clientFor(t testing.TB) clientset.Interface { return shared.client(t) }
