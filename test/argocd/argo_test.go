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

package argocd

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// argo is Argo CD's side of a plugin: the stencil sidecar (argocd-cmp-server with the shipped
// plugin.yaml) and the repository service that calls it.
type argo struct {
	dir string
	// bin is the PATH of the sidecar and the repository service: the stencil CLI, and the
	// git-verify-wrapper.sh that argocd-repo-server's image has and runs on every checkout.
	bin string
	// sockets is where each sidecar listens (ARGOCD_PLUGINSOCKFILEPATH).
	sockets string
	// seed is the file of the secret seed generated values derive from.
	seed     string
	sidecars []*sidecar
	driver   *driver
}

// sidecar is one argocd-cmp-server process.
type sidecar struct {
	name string
	cmd  *exec.Cmd
	log  string
}

// binaries built by hack/build-argocd-binaries.sh.
func argoBinary(name string) string { return filepath.Join(repoRoot, "_output", "bin", name) }

// startArgo builds the stencil CLI and starts the stencil sidecar and the repository service.
func startArgo(dir string) (*argo, error) {
	a := &argo{dir: dir, bin: filepath.Join(dir, "bin"), sockets: filepath.Join(dir, "plugins"), seed: filepath.Join(dir, "seed")}
	for _, d := range []string{a.bin, a.sockets, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	build := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", filepath.Join(a.bin, "stencil"), "./cmd/stencil")
	build.Dir, build.Stdout, build.Stderr = repoRoot, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("building stencil: %v", err)
	}
	// argocd-repo-server's image ships this script and the repository service runs it to
	// verify every revision it checks out; an unsigned commit verifies as nothing.
	if err := os.WriteFile(filepath.Join(a.bin, "git-verify-wrapper.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		return nil, err
	}
	seed := make([]byte, 32)
	_, _ = rand.Read(seed)
	if err := os.WriteFile(a.seed, []byte(base64.StdEncoding.EncodeToString(seed)+"\n"), 0o600); err != nil {
		return nil, err
	}
	if _, err := a.startSidecar("stencil-v1", filepath.Join(repoRoot, "artifacts", "argocd"), nil); err != nil {
		return a, err
	}
	d, err := startDriver(a)
	if err != nil {
		return a, err
	}
	a.driver = d
	return a, nil
}

// environ is the environment of a process of Argo CD's: nothing of the test's own.
func (a *argo) environ(extra ...string) []string {
	return append([]string{
		"PATH=" + a.bin + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + filepath.Join(a.dir, "home"),
		"ARGOCD_PLUGINSOCKFILEPATH=" + a.sockets,
		"GIT_CONFIG_NOSYSTEM=1",
	}, extra...)
}

// startSidecar starts argocd-cmp-server with the plugin.yaml of configDir, in a work directory
// of its own (it deletes its work directory when it starts), and waits for its socket, named
// as Argo CD names it (socket: the plugin's name and version).
func (a *argo) startSidecar(socket, configDir string, extraEnv []string) (*sidecar, error) {
	work := filepath.Join(a.dir, "sidecar-"+socket)
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	log, err := os.Create(work + ".log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argoBinary("argocd-cmp-server"), "--config-dir-path", configDir, "--loglevel", "info", "--logformat", "text")
	cmd.Env = a.environ(append([]string{"TMPDIR=" + work, "ARGOCD_CMP_WORKDIR=" + work,
		"STENCIL_GENERATE_SEED_FILE=" + a.seed}, extraEnv...)...)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: the sidecar ignores SIGTERM, so it is killed, with its children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	log.Close()
	s := &sidecar{name: socket, cmd: cmd, log: work + ".log"}
	a.sidecars = append(a.sidecars, s)
	path := filepath.Join(a.sockets, socket+".sock")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if info, err := os.Stat(path); err == nil && info.Mode()&os.ModeSocket != 0 {
			return s, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("argocd-cmp-server made no socket %s within a minute", path)
		}
	}
}

// kill stops a sidecar: argocd-cmp-server does not stop on SIGTERM, so SIGKILL its group.
func (s *sidecar) kill() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		_ = s.cmd.Wait()
	}
}

func (a *argo) stop() {
	if a.driver != nil {
		a.driver.stop()
	}
	for _, s := range a.sidecars {
		s.kill()
	}
}

// sidecarLog is the end of the stencil sidecar's log.
func (a *argo) sidecarLog(n int) string {
	if len(a.sidecars) == 0 {
		return ""
	}
	data, _ := os.ReadFile(a.sidecars[0].log)
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}

// request is one question to the repository service (hack/argocd-tools/argocd-repo-driver).
type request struct {
	ID             int           `json:"id"`
	Op             string        `json:"op"`
	Repo           string        `json:"repo"`
	Revision       string        `json:"revision"`
	Path           string        `json:"path"`
	AppName        string        `json:"appName"`
	Namespace      string        `json:"namespace"`
	Project        string        `json:"project"`
	Plugin         *pluginSource `json:"plugin,omitempty"`
	KubeVersion    string        `json:"kubeVersion"`
	APIVersions    []string      `json:"apiVersions"`
	AppLabelKey    string        `json:"appLabelKey,omitempty"`
	TrackingMethod string        `json:"trackingMethod,omitempty"`
	NoCache        bool          `json:"noCache"`
	Repeat         int           `json:"repeat,omitempty"`
}

// pluginSource is an Application's spec.source.plugin.
type pluginSource struct {
	Name       string         `json:"name,omitempty"`
	Env        []envEntry     `json:"env,omitempty"`
	Parameters []appParameter `json:"parameters,omitempty"`
}

type envEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// appParameter is one of an Application's plugin parameters.
type appParameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

func str(s string) *string { return &s }

// response is the repository service's answer.
type response struct {
	ID         int            `json:"id"`
	Manifests  []string       `json:"manifests"`
	Revision   string         `json:"revision"`
	SourceType string         `json:"sourceType"`
	Parameters []announcement `json:"parameters"`
	Error      string         `json:"error"`
	Code       string         `json:"code"`
	Nanos      []int64        `json:"nanos"`
}

// announcement is Argo CD's ParameterAnnouncement as its JSON spells it.
type announcement struct {
	Name           string            `json:"name"`
	Title          string            `json:"title"`
	Tooltip        string            `json:"tooltip"`
	Required       bool              `json:"required"`
	ItemType       string            `json:"itemType"`
	CollectionType string            `json:"collectionType"`
	String         *string           `json:"string"`
	Array          []string          `json:"array"`
	Map            map[string]string `json:"map"`
}

// driver talks to argocd-repo-driver: one JSON request a line in, one answer a line out.
type driver struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	next    int
	waiting map[int]chan response
}

func startDriver(a *argo) (*driver, error) {
	work := filepath.Join(a.dir, "repo-server")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	log, err := os.Create(work + ".log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argoBinary("argocd-repo-driver"), "--work", work)
	cmd.Env = a.environ("TMPDIR="+work, "ARGOCD_REPO_SERVER_LOGLEVEL=warn")
	cmd.Stderr = log
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &driver{cmd: cmd, in: in, waiting: map[int]chan response{}}
	go func() {
		scanner := bufio.NewScanner(out)
		scanner.Buffer(make([]byte, 0, 1<<20), 512<<20)
		for scanner.Scan() {
			var res response
			if err := json.Unmarshal(scanner.Bytes(), &res); err != nil {
				fmt.Fprintln(os.Stderr, "argocd: unreadable answer of the repository service:", err)
				continue
			}
			d.mu.Lock()
			ch := d.waiting[res.ID]
			delete(d.waiting, res.ID)
			d.mu.Unlock()
			if ch != nil {
				ch <- res
			}
		}
		d.mu.Lock()
		for id, ch := range d.waiting {
			ch <- response{ID: id, Error: "the repository service exited", Code: "Unavailable"}
		}
		d.waiting = nil
		d.mu.Unlock()
	}()
	return d, nil
}

// send writes a request and returns where its answer arrives.
func (d *driver) send(req request) <-chan response {
	ch := make(chan response, 1)
	d.mu.Lock()
	d.next++
	req.ID = d.next
	if d.waiting == nil {
		d.mu.Unlock()
		ch <- response{Error: "the repository service exited", Code: "Unavailable"}
		return ch
	}
	d.waiting[req.ID] = ch
	line, _ := json.Marshal(req)
	_, err := d.in.Write(append(line, '\n'))
	d.mu.Unlock()
	if err != nil {
		ch <- response{ID: req.ID, Error: err.Error(), Code: "Unavailable"}
	}
	return ch
}

// ask asks one request and waits for its answer.
func (d *driver) ask(req request) response { return <-d.send(req) }

func (d *driver) stop() {
	_ = d.in.Close()
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
}
