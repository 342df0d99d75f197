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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/test/localserver"
)

// deploymentPath is the shipped Deployment whose memory limit the memory test holds the
// server to.
var deploymentPath = filepath.Join("..", "..", "artifacts", "deploy", "base", "06-deployment.yaml")

// shippedMemory is what the Deployment gives the server: its container's memory limit, the
// GOMEMLIMIT it derives from it, and the processing flags it passes.
type shippedMemory struct {
	limit      int64
	goMemLimit string
	flags      []string
}

// readShippedMemory reads the Deployment as kubectl would apply it.
func readShippedMemory(t *testing.T) shippedMemory {
	t.Helper()
	data, err := os.ReadFile(deploymentPath)
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatalf("%s: %v", deploymentPath, err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name != "stencil-apiserver" {
			continue
		}
		limit, ok := c.Resources.Limits["memory"]
		if !ok {
			t.Fatalf("%s sets no memory limit", deploymentPath)
		}
		shipped := shippedMemory{limit: limit.Value()}
		for _, e := range c.Env {
			switch {
			case e.Name != "GOMEMLIMIT":
			case e.Value != "":
				shipped.goMemLimit = e.Value
			case e.ValueFrom != nil && e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
				// The kubelet writes the limit in bytes (the divisor defaults to 1).
				shipped.goMemLimit = strconv.FormatInt(limit.Value(), 10)
			}
		}
		// Local mode takes the processing flags; the others name the cluster's etcd and Secrets.
		for _, arg := range c.Args {
			if strings.HasPrefix(arg, "--max-") || strings.HasPrefix(arg, "--processing-") || strings.HasSuffix(strings.SplitN(arg, "=", 2)[0], "-cache-bytes") {
				shipped.flags = append(shipped.flags, arg)
			}
		}
		return shipped
	}
	t.Fatalf("%s has no stencil-apiserver container", deploymentPath)
	return shippedMemory{}
}

// bigAnswerTemplate answers 60 copies of its parameter P: a 1 MiB value makes a 60 MiB
// answer, within the 64 MiB output budget of one request.
const bigAnswerTemplate = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"big"},
"parameters":[{"name":"P","required":true}],
"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{%s}}]}`

// TestMemoryWithShippedLimits is issue 24's memory finding: the server runs with the
// Deployment's memory limit as GOMEMLIMIT and its processing flags, and is sent, in rounds,
// more concurrent 60 MiB answers than it processes at a time (half of them read slowly, so
// that the answers stay in flight), beside small processing requests, reads and writes. Every
// request is answered (a 429 with Retry-After is an answer), the server stays up and ready,
// and its peak resident memory, embedded etcd included, stays under the container's limit,
// where it would be OOM-killed.
func TestMemoryWithShippedLimits(t *testing.T) {
	shipped := readShippedMemory(t)
	s, err := newServer(filepath.Join(t.TempDir(), "memory"), shipped.flags...)
	if err != nil {
		t.Fatal(err)
	}
	s.Env = []string{"GOMEMLIMIT=" + shipped.goMemLimit}
	if err := s.start(); err != nil {
		s.dumpLog(t)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			s.dumpLog(t)
		}
	})
	// The server sized its processing memory from GOMEMLIMIT, as the Deployment sets it.
	if log := s.LogTail(1 << 20); !strings.Contains(log, fmt.Sprintf("Processing may hold %d MiB (half of GOMEMLIMIT", shipped.limit/2>>20)) {
		t.Errorf("the server did not size its processing memory from GOMEMLIMIT=%s: %s", shipped.goMemLimit, log)
	}
	h := newRawClient(t, s.Config)
	keys := make([]string, 60)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d":"${P}"`, i)
	}
	for _, tpl := range []string{fmt.Sprintf(bigAnswerTemplate, strings.Join(keys, ",")), smallTemplate} {
		if status, body := h.post(t, "/apis/templates.stencil.dev/v1alpha1/namespaces/memory/templates", []byte(tpl), 0); status != http.StatusCreated {
			t.Fatalf("storing a template: %d %.300s", status, body)
		}
	}
	big, _ := json.Marshal(map[string]any{"parameters": map[string]string{"P": strings.Repeat("x", 1<<20)}})

	const rounds, attackers, others = 3, 8, 24
	var mu sync.Mutex
	counts := map[string]int{}
	count := func(what string) {
		mu.Lock()
		counts[what]++
		mu.Unlock()
	}
	for range rounds {
		var wg sync.WaitGroup
		for i := range attackers {
			// Half the attackers read their answer slowly, holding it in flight.
			slow := time.Duration(i%2) * 2 * time.Second
			wg.Go(func() {
				status, body := h.post(t, "/apis/templates.stencil.dev/v1alpha1/namespaces/memory/templates/big/processed", big, slow)
				switch {
				case status == http.StatusCreated && len(body) > 60<<20:
					count("big answered")
				case status == http.StatusTooManyRequests:
					count("big told to retry")
				default:
					t.Errorf("a 60 MiB answer: status %d, %d bytes: %.300s", status, len(body), body)
				}
			})
		}
		for i := range others {
			wg.Go(func() {
				path, body := "/apis/templates.stencil.dev/v1alpha1/namespaces/memory/templates/small/processed", []byte(`{"parameters":{"N":"x"}}`)
				if i%3 == 1 {
					path, body = "/apis/templates.stencil.dev/v1alpha1/namespaces/memory/processedtemplates", []byte(smallTemplate)
				}
				if i%3 == 2 {
					if status, got := h.get(t, "/apis/templates.stencil.dev/v1alpha1/namespaces/memory/templates/small"); status != http.StatusOK {
						t.Errorf("a GET beside the attack: %d %.300s", status, got)
					}
					count("small answered")
					return
				}
				switch status, got := h.post(t, path, body, 0); status {
				case http.StatusOK, http.StatusCreated:
					count("small answered")
				case http.StatusTooManyRequests:
					count("small told to retry")
				default:
					t.Errorf("a small request beside the attack: %d %.300s", status, got)
				}
			})
		}
		wg.Wait()
	}
	if status, body := h.get(t, "/readyz"); status != http.StatusOK {
		t.Errorf("/readyz after the attack: %d %s", status, body)
	}
	if counts["big answered"] == 0 {
		t.Errorf("no 60 MiB answer was served: %v", counts)
	}
	peak, err := localserver.PeakRSS(s.Pid())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GOMEMLIMIT=%s, limit %d MiB: peak resident memory %d MiB; %v", shipped.goMemLimit, shipped.limit>>20, peak>>20, counts)
	if peak >= shipped.limit {
		t.Errorf("the server's peak resident memory is %d MiB, at or above the Deployment's limit of %d MiB: it would be OOM-killed", peak>>20, shipped.limit>>20)
	}
}

// smallTemplate is a template of a usual size.
const smallTemplate = `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"small"},
"parameters":[{"name":"N","value":"app"}],
"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${N}"},"data":{"key":"value"}}]}`

// rawClient sends requests with the server's kubeconfig and gives back the status and body.
type rawClient struct {
	client *http.Client
	host   string
}

func newRawClient(t *testing.T, config *rest.Config) *rawClient {
	t.Helper()
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		t.Fatal(err)
	}
	return &rawClient{client: client, host: config.Host}
}

func (c *rawClient) get(t *testing.T, path string) (int, []byte) {
	return c.do(t, http.MethodGet, path, nil, 0)
}

func (c *rawClient) post(t *testing.T, path string, body []byte, slow time.Duration) (int, []byte) {
	return c.do(t, http.MethodPost, path, body, slow)
}

// do sends one request; with slow, it waits that long after the headers before reading the
// body, as a slow client does. A request that gets no answer fails the test.
func (c *rawClient) do(t *testing.T, method, path string, body []byte, slow time.Duration) (int, []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.host+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		t.Errorf("%s %s: no answer: %v", method, path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s %s: a 429 without Retry-After", method, path)
	}
	time.Sleep(slow)
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s %s: the answer was cut: %v", method, path, err)
	}
	return resp.StatusCode, got
}
