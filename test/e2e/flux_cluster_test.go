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
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"stencil.dev/stencil/pkg/netutil"
)

// Flux's kustomize-controller runs beside the cluster for the tests of published
// TemplateInstances only: the first of them builds it (hack/build-flux-binaries.sh, pinned
// modules, cached in _output/bin), installs the CRDs it needs and starts it as Flux installs it,
// in flux-system with its own ServiceAccount bound to cluster-admin; every Kustomization of the
// tests names a serviceAccountName, which the controller impersonates.

const fluxNamespace = "flux-system"

var (
	fluxOnce sync.Once
	fluxErr  error
	fluxProc *process
)

// needFlux starts kustomize-controller once for the suite, or fails the test with why it could
// not.
func needFlux(t testing.TB) {
	t.Helper()
	fluxOnce.Do(func() { fluxProc, fluxErr = env.startFlux() })
	if fluxErr != nil {
		t.Fatalf("kustomize-controller: %v", fluxErr)
	}
	if err := fluxProc.alive(); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) startFlux() (*process, error) {
	build := exec.Command(filepath.Join(repoRoot, "hack", "build-flux-binaries.sh"))
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("building kustomize-controller: %w", err)
	}
	crds := filepath.Join(repoRoot, "_output", "flux-crds")
	if _, err := c.kubectl("admin", "", "apply", "--server-side", "-f", crds); err != nil {
		return nil, err
	}
	for _, crd := range []string{"kustomizations.kustomize.toolkit.fluxcd.io", "externalartifacts.source.toolkit.fluxcd.io",
		"gitrepositories.source.toolkit.fluxcd.io", "ocirepositories.source.toolkit.fluxcd.io", "buckets.source.toolkit.fluxcd.io"} {
		if _, err := c.kubectl("admin", "", "wait", "--for=condition=Established", "--timeout=60s", "crd/"+crd); err != nil {
			return nil, err
		}
	}
	// Flux's own install: the controller's ServiceAccount may do anything (Flux binds it to
	// cluster-admin); what a Kustomization applies is bounded by its serviceAccountName.
	setup := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: kustomize-controller, namespace: %[1]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: cluster-reconciler-%[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: kustomize-controller, namespace: %[1]s}]
`, fluxNamespace)
	if _, err := c.kubectl("admin", setup, "apply", "-f", "-"); err != nil {
		return nil, err
	}
	token, err := c.kubectl("admin", "", "create", "token", "kustomize-controller", "-n", fluxNamespace, "--duration=24h")
	if err != nil {
		return nil, err
	}
	if err := c.writeKubeconfig("kustomize-controller", &clientcmdapi.AuthInfo{Token: strings.TrimSpace(token)}); err != nil {
		return nil, err
	}
	ports, err := netutil.FreeLoopbackPorts(2)
	if err != nil {
		return nil, err
	}
	health := "127.0.0.1:" + strconv.Itoa(ports[1])
	p := &process{name: "kustomize-controller", binary: filepath.Join(repoRoot, "_output", "bin", "kustomize-controller"),
		args: []string{
			// ExternalArtifact sources are behind a feature gate in v1.9.
			"--feature-gates=ExternalArtifact=true",
			"--metrics-addr=127.0.0.1:" + strconv.Itoa(ports[0]), "--health-addr=" + health,
			"--watch-all-namespaces=true", "--no-remote-bases=true", "--log-level=debug", "--log-encoding=console",
			// One retry: a refused download is reported in seconds, not after nine backoffs.
			"--http-retry=1",
		},
		// v1.9.6 has no --kubeconfig flag: controller-runtime reads $KUBECONFIG.
		env: []string{"KUBECONFIG=" + c.kubeconfigs["kustomize-controller"], "RUNTIME_NAMESPACE=" + fluxNamespace}}
	if err := p.start(c.logDir); err != nil {
		return nil, err
	}
	return p, waitFor(2*time.Minute, "kustomize-controller ready", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+health+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %d", resp.StatusCode)
		}
		return nil
	}, p)
}

// artifactService stands in for the stencil-artifacts Service: it spreads requests over the
// replicas' artifact servers, as kube-proxy would, and, while tamper is set, changes one byte
// of every artifact it hands out, as anyone on the path of plain HTTP could.
type artifactService struct {
	srv      *http.Server
	backends []string
	next     atomic.Uint64
	tamper   atomic.Bool
	// fetches counts the artifacts handed out.
	fetches atomic.Int64
}

func newArtifactService(addr string, backends []string) (*artifactService, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &artifactService{backends: backends}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

func (s *artifactService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := s.next.Add(1)
	var resp *http.Response
	var err error
	for i := range s.backends {
		backend := s.backends[(int(start)+i)%len(s.backends)]
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, "http://"+backend+r.URL.RequestURI(), nil)
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if resp.StatusCode == http.StatusOK {
		s.fetches.Add(1)
		if s.tamper.Load() && len(body) > 0 {
			body[len(body)/2] ^= 0x20
		}
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

func (s *artifactService) close() { _ = s.srv.Close() }

// mustKubectlTB runs kubectl as user for a test or a benchmark, failing it on an error.
func mustKubectlTB(tb testing.TB, user, stdin string, args ...string) string {
	tb.Helper()
	out, err := env.kubectl(user, stdin, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
