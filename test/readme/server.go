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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"stencil.dev/stencil/pkg/netutil"
)

// LocalServer is the README's `sh server` command (make run ...) running in the repository.
type LocalServer struct {
	cmd    *exec.Cmd
	exited chan error
	log    *os.File
}

// StartLocalServer runs the server command in repo as the reader runs it in a terminal, with
// make's PORT and LOCAL_DIR given through MAKEFLAGS (as command-line variables, whatever the
// command says), so that it answers on a free port with its data in the checkout. It waits
// until the server answers /readyz with the kubeconfig it writes. Its output goes to logPath.
func StartLocalServer(repo string, c Command, checkout *Checkout, logPath string) (*LocalServer, error) {
	ports, err := netutil.FreeLoopbackPorts(1)
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	s := &LocalServer{log: log, exited: make(chan error, 1)}
	s.cmd = exec.Command("bash", "--noprofile", "--norc", "-c", c.Text)
	s.cmd.Dir = repo
	s.cmd.Env = append(os.Environ(), fmt.Sprintf("MAKEFLAGS=PORT=%d LOCAL_DIR=%s", ports[0], checkout.LocalDir()))
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// A process group, as a terminal's: Stop sends SIGINT to make and the server, as Ctrl-C.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	go func() { s.exited <- s.cmd.Wait() }()
	kubeconfig := filepath.Join(checkout.LocalDir(), "kubeconfig")
	// make run builds first: minutes on a cold build cache.
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-s.exited:
			s.exited <- err
			return false, fmt.Errorf("%s exited: %v (its output is in %s)", c.Text, err, logPath)
		default:
		}
		config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return false, nil
		}
		client, err := rest.HTTPClientFor(config)
		if err != nil {
			return false, nil
		}
		resp, err := client.Get(config.Host + "/readyz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == 200, nil
	})
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop sends SIGINT to the process group, as Ctrl-C in the terminal, and waits for it.
func (s *LocalServer) Stop() {
	defer s.log.Close()
	select {
	case err := <-s.exited:
		s.exited <- err
		return
	default:
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(time.Minute):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}
