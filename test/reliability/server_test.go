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
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/test/localserver"
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

// serverBinary is built once by TestMain, or named by serverBinaryEnv: the suite then runs
// against another build (an older one, to see a test fail where it failed).
var serverBinary string

const serverBinaryEnv = "STENCIL_RELIABILITY_SERVER"

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
	if serverBinary = os.Getenv(serverBinaryEnv); serverBinary == "" {
		binaries, err := localserver.Build(dir, "stencil.dev/stencil/cmd/stencil-apiserver")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		serverBinary = binaries[0]
	}
	code := m.Run()
	if benchServer != nil {
		if err := benchServer.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the benchmarks' server:", err)
			code = 1
		}
		os.RemoveAll(benchServer.Dir)
	}
	return code
}

// server is one stencil-apiserver process in local mode, with the suite's helpers.
type server struct {
	*localserver.Server
}

// newServer prepares a server with its data in dir, with extra flags.
func newServer(dir string, args ...string) (*server, error) {
	s, err := localserver.New(serverBinary, dir, args...)
	if err != nil {
		return nil, err
	}
	return &server{s}, nil
}

// startServer starts a server with its data in dir, with extra flags, and waits until it
// answers /readyz; the test stops it when it ends.
func startServer(tb testing.TB, dir string, args ...string) *server {
	tb.Helper()
	s, err := newServer(dir, args...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.start(); err != nil {
		s.dumpLog(tb)
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
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
	if err := s.Start(); err != nil {
		return err
	}
	s.Config.QPS, s.Config.Burst = -1, 0 // no client-side rate limit: the server is measured
	return nil
}

func (s *server) dumpLog(tb testing.TB) {
	tb.Logf("server log of %s (end):\n%s", s.Dir, s.LogTail(8<<10))
}

// client returns a client with a connection of its own: client-go shares one transport, and
// so one HTTP/2 connection, between configs that are alike, unless they bring their own
// dialer. Concurrent clients of the suite are separate connections, as separate users are.
func (s *server) client(tb testing.TB) clientset.Interface {
	tb.Helper()
	config := rest.CopyConfig(s.Config)
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
