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

package reliability

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/netutil"
)

// How etcd is made unavailable. Local mode embeds etcd in the server's process, where it
// cannot be stopped alone, so this test gives the server an etcd of its own through
// --etcd-servers (local mode then embeds none): the test binary itself, started again as an
// etcd, the same embedded etcd local mode runs. SIGSTOP freezes that process for a few
// seconds and SIGCONT thaws it. Of the ways to cut a server off from etcd this is the
// cleanest: connections stay open and requests hang, as with an etcd that is overloaded or
// partitioned, with nothing in between to get wrong (a proxy would be a second program to
// trust), and it needs no hook in the server. A killed etcd would test its restart instead.
const (
	etcdDirEnv       = "STENCIL_RELIABILITY_ETCD_DIR"
	etcdClientURLEnv = "STENCIL_RELIABILITY_ETCD_CLIENT_URL"
	etcdPeerURLEnv   = "STENCIL_RELIABILITY_ETCD_PEER_URL"
)

// runEtcd serves etcd with its data in dir until SIGTERM or SIGINT. It listens on loopback,
// in plain HTTP: it holds only this test's throwaway data for the time of the test.
func runEtcd(dir string) int {
	clientURL, err1 := url.Parse(os.Getenv(etcdClientURLEnv))
	peerURL, err2 := url.Parse(os.Getenv(etcdPeerURLEnv))
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "etcd: bad URLs:", err1, err2)
		return 2
	}
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir, cfg.LogLevel = "reliability", dir, "error"
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*clientURL}, []url.URL{*clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peerURL}, []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 1
	}
	defer e.Close()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-signals:
		return 0
	case err := <-e.Err():
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 1
	}
}

// startEtcd starts an etcd process for the test and returns it and its client URL.
func startEtcd(t *testing.T) (*os.Process, string) {
	t.Helper()
	ports, err := netutil.FreeLoopbackPorts(2)
	if err != nil {
		t.Fatal(err)
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	dir := t.TempDir()
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), etcdDirEnv+"="+filepath.Join(dir, "data"), etcdClientURLEnv+"="+clientURL,
		etcdPeerURLEnv+"=http://127.0.0.1:"+strconv.Itoa(ports[1]))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT) // a failed test may leave it stopped
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		log.Close()
	})
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, time.Minute, true,
		func(ctx context.Context) (bool, error) {
			resp, err := http.Get(clientURL + "/health")
			if err != nil {
				return false, nil
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		})
	if err != nil {
		t.Fatalf("etcd did not become healthy: %v", err)
	}
	return cmd.Process, clientURL
}

// outcome counts the answers of one phase by status code and reason.
type outcome struct {
	mu     sync.Mutex
	counts map[string]int
	failed []string // answers outside what the phase allows
}

func (o *outcome) record(class string, allowed bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.counts == nil {
		o.counts = map[string]int{}
	}
	o.counts[class]++
	if !allowed {
		o.failed = append(o.failed, class)
	}
}

// probe is one GET of a stored template and one create, each given 2 s by the server
// (?timeout=), and 30 s by the client, so that it is the server that answers.
func probe(ctx context.Context, cs clientset.Interface, name string) []error {
	rc := cs.TemplatesV1alpha1().RESTClient()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	get := rc.Get().Namespace("pause").Resource("templates").Name("seed").Param("timeout", "2s").MaxRetries(0).Do(ctx).Error()
	create := rc.Post().Namespace("pause").Resource("templates").Param("timeout", "2s").MaxRetries(0).
		Body(newTemplate(name)).Do(ctx).Error()
	return []error{get, create}
}

// classify names an answer: "ok", or the status code and reason of a refusal, or the client's
// own failure.
func classify(err error) (string, bool) {
	if err == nil {
		return "ok", true
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return "client: " + err.Error(), false
	}
	st := status.Status()
	return fmt.Sprintf("%d %s", st.Code, st.Reason), true
}

// unavailableClass says whether an answer is what a server whose storage is unavailable may
// give: 503 ServiceUnavailable, 504 Timeout, or 500 ServerTimeout, which is what
// k8s.io/apiserver's storage layer makes of an etcd request that ran out of time.
func unavailableClass(err error) bool {
	s, ok := err.(apierrors.APIStatus)
	if !ok {
		return false
	}
	st := s.Status()
	switch {
	case st.Code == http.StatusServiceUnavailable, st.Code == http.StatusGatewayTimeout:
		return true
	case st.Code == http.StatusInternalServerError && st.Reason == metav1.StatusReasonServerTimeout:
		return true
	}
	return false
}

// TestEtcdPause freezes the server's etcd for a few seconds under GETs and creates. While it is
// frozen, requests succeed or fail with a ServiceUnavailable-class 5xx only; when it thaws, the
// server serves again by itself, without a restart.
func TestEtcdPause(t *testing.T) {
	etcd, etcdURL := startEtcd(t)
	s := startServer(t, t.TempDir(), "--etcd-servers", etcdURL)
	ctx := context.Background()
	if _, err := s.client(t).TemplatesV1alpha1().Templates("pause").Create(ctx, newTemplate("seed"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const clients = 4
	cs := make([]clientset.Interface, clients)
	for i := range cs {
		cs[i] = s.client(t)
	}
	seq := 0
	for round := range settings.pauseRounds {
		// Before: everything succeeds.
		for range 10 {
			seq++
			for _, err := range probe(ctx, cs[0], fmt.Sprintf("before-%d", seq)) {
				if err != nil {
					t.Fatalf("round %d, before the pause: %v", round, err)
				}
			}
		}
		// During: clients keep asking while etcd is stopped; the pause, not the requests,
		// is timed. A request sent once the pause began waits for the 2 s the server gives it,
		// shorter than the pause, so some fail: that the fault took effect is checked too.
		if err := etcd.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		var during outcome
		paused := time.Now()
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < 100 && time.Since(paused) < settings.pause; n++ {
					for _, err := range probe(ctx, cs[c], fmt.Sprintf("during-%d-%d-%d", round, c, n)) {
						class, _ := classify(err)
						during.record(class, err == nil || unavailableClass(err))
					}
				}
			}()
		}
		wg.Wait()
		if err := etcd.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		resumed := time.Now()
		if len(during.failed) > 0 {
			t.Errorf("round %d: answers while etcd was stopped that are not ServiceUnavailable-class: %v (all: %v)", round, during.failed, during.counts)
		}
		if during.counts["ok"] == sumCounts(during.counts) {
			t.Errorf("round %d: every request succeeded while etcd was stopped: the fault did not take effect", round)
		}
		// After: the server recovers by itself; it is given a minute and 200 tries.
		var recovered bool
		for n := 0; n < 200 && time.Since(resumed) < time.Minute && !recovered; n++ {
			seq++
			errs := probe(ctx, cs[0], fmt.Sprintf("after-%d", seq))
			recovered = errs[0] == nil && errs[1] == nil
			if !recovered {
				time.Sleep(100 * time.Millisecond)
			}
		}
		if !recovered {
			t.Fatalf("round %d: the server did not serve again within a minute of etcd's return", round)
		}
		t.Logf("round %d: etcd stopped %v; answers meanwhile %v; serving again %v after SIGCONT",
			round, resumed.Sub(paused).Round(time.Millisecond), during.counts, time.Since(resumed).Round(time.Millisecond))
	}
}

func sumCounts(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
