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

// Package reliability is issue 17's load and fault suite: the real stencil-apiserver binary in
// local mode, loaded by concurrent clients, killed with SIGKILL under a create loop, and cut
// off from its etcd. Everything runs on loopback; every loop is bounded in count and time.
//
// The default settings keep `make test` fast; `make soak` runs the same tests bigger through
// the environment (see settings).
package reliability

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/netutil"
)

// settings are the suite's sizes, from the environment.
var settings = struct {
	// killRounds is how many times the server is killed under a create loop, and
	// acksPerRound how many acknowledged creates each round waits for before the kill.
	killRounds, acksPerRound int
	// pauseRounds is how many times etcd is paused, for pause each time.
	pauseRounds int
	pause       time.Duration
}{
	killRounds:   envInt("STENCIL_RELIABILITY_KILL_ROUNDS", 3),
	acksPerRound: envInt("STENCIL_RELIABILITY_ACKS_PER_ROUND", 200),
	pauseRounds:  envInt("STENCIL_RELIABILITY_PAUSE_ROUNDS", 1),
	pause:        time.Duration(envInt("STENCIL_RELIABILITY_PAUSE_SECONDS", 4)) * time.Second,
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// serverBinary is built once by TestMain.
var serverBinary string

func TestMain(m *testing.M) {
	if dir := os.Getenv(etcdDirEnv); dir != "" {
		// This process is the etcd of TestEtcdPause, started by the test binary itself.
		os.Exit(runEtcd(dir))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "stencil-reliability")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBinary = filepath.Join(dir, "stencil-apiserver")
	build := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", serverBinary, "stencil.dev/stencil/cmd/stencil-apiserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building stencil-apiserver:", err)
		return 1
	}
	code := m.Run()
	if benchServer != nil {
		if err := benchServer.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the benchmarks' server:", err)
			code = 1
		}
		os.RemoveAll(benchServer.dir)
	}
	return code
}

// server is one stencil-apiserver process in local mode.
type server struct {
	dir     string
	args    []string
	cmd     *exec.Cmd
	logFile *os.File
	exited  chan error
	config  *rest.Config
	// ready is how long the process took from its start to answering /readyz.
	ready time.Duration
}

// startServer starts a server with its data in dir, with extra flags, and waits until it
// answers /readyz; the test stops it when it ends.
func startServer(tb testing.TB, dir string, args ...string) *server {
	tb.Helper()
	s := &server{dir: dir, args: args}
	if err := s.start(); err != nil {
		s.dumpLog(tb)
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.stop(); err != nil {
			tb.Error(err)
		}
		if tb.Failed() {
			s.dumpLog(tb)
		}
	})
	return s
}

// start starts the process (again, after a kill) on the same directory and port.
func (s *server) start() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	if s.cmd == nil {
		ports, err := netutil.FreeLoopbackPorts(1)
		if err != nil {
			return err
		}
		s.args = append(s.args, "--local", "--local-dir", s.dir, "--secure-port", strconv.Itoa(ports[0]))
	}
	logFile, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s.logFile = logFile
	s.cmd = exec.Command(serverBinary, s.args...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	begin := time.Now()
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		return err
	}
	s.exited = make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan error) { exited <- cmd.Wait() }(s.cmd, s.exited)
	if err := s.waitReady(); err != nil {
		_ = s.kill()
		return err
	}
	s.ready = time.Since(begin)
	return nil
}

func (s *server) waitReady() error {
	kubeconfig := filepath.Join(s.dir, "kubeconfig")
	return wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true,
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
			config.QPS, config.Burst = -1, 0 // no client-side rate limit: the server is measured
			cs, err := clientset.NewForConfig(config)
			if err != nil {
				return false, nil
			}
			body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			if err != nil || string(body) != "ok" {
				return false, nil
			}
			s.config = config
			return true, nil
		})
}

// kill sends SIGKILL, as the kernel's OOM killer or a node failure would, and waits for the
// process to be gone.
func (s *server) kill() error {
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

// stop sends SIGINT, as Ctrl-C does, and waits for the process to exit.
func (s *server) stop() error {
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

func (s *server) dumpLog(tb testing.TB) {
	if log, err := os.ReadFile(filepath.Join(s.dir, "server.log")); err == nil {
		const tail = 8 << 10
		if len(log) > tail {
			log = log[len(log)-tail:]
		}
		tb.Logf("server log of %s (end):\n%s", s.dir, log)
	}
}

// client returns a client with a connection of its own: client-go shares one transport, and
// so one HTTP/2 connection, between configs that are alike, unless they bring their own
// dialer. Concurrent clients of the suite are separate connections, as separate users are.
func (s *server) client(tb testing.TB) clientset.Interface {
	tb.Helper()
	config := rest.CopyConfig(s.config)
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	config.Dial = dialer.DialContext
	cs, err := clientset.NewForConfig(config)
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// newTemplate is a small template, as most are: one parameter, one object.
func newTemplate(name string) *templatesv1.Template {
	return &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Parameters: []templatesv1.Parameter{{Name: "NAME", Value: "app"}},
		Objects: []runtime.RawExtension{{Raw: []byte(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}"},"data":{"key":"value"}}`)}},
	}
}
