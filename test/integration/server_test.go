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
	"fmt"
	"os"
	"path/filepath"
	"testing"

	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/test/localserver"
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
	binaries, err := localserver.Build(dir, "stencil.dev/stencil/cmd/stencil-apiserver", "stencil.dev/stencil/cmd/stencil")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	serverBinary, cliBinary = binaries[0], binaries[1]
	sharedDir := filepath.Join(dir, "shared")
	if shared, err = startLocalServer(sharedDir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		dumpLog(sharedDir)
		return 1
	}
	code := m.Run()
	if err := shared.Stop(); err != nil {
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

// localServer is one stencil-apiserver process in local mode, with the suite's helpers.
type localServer struct {
	*localserver.Server
}

// startLocalServer starts a server on a free port with its data in dir and extra flags, and
// waits until it answers /readyz.
func startLocalServer(dir string, flags ...string) (*localServer, error) {
	s, err := localserver.New(serverBinary, dir, flags...)
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		return nil, err
	}
	s.Config.QPS, s.Config.Burst = 1000, 1000
	return &localServer{s}, nil
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
		_ = s.Stop()
		if t.Failed() {
			dumpLog(dir)
		}
	})
	return s
}

func (s *localServer) client(t testing.TB) clientset.Interface {
	t.Helper()
	cs, err := clientset.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// clientFor is a client of the shared server.
func clientFor(t testing.TB) clientset.Interface { return shared.client(t) }
