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
	"net/http"
	"sync"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/client-go/rest"
)

// TestPriorityAndFairness checks that API Priority and Fairness stays on in cluster mode: a
// replica classifies every request (the X-Kubernetes-PF-* headers that only APF sets), and a
// burst far above its concurrency is answered with 200 or with 429 and Retry-After, never a
// 5xx or a dropped connection, after which the replica is still ready.
func TestPriorityAndFairness(t *testing.T) {
	config, err := env.replicaConfig(0)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		t.Fatal(err)
	}
	url := config.Host + "/apis/templates.stencil.dev/v1alpha1/namespaces/default/templates"
	get := func(ctx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return client.Do(req)
	}

	resp, err := get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) == "" ||
		resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID) == "" {
		t.Fatalf("the replica did not classify the request: APF is off (status %d, headers %v)", resp.StatusCode, resp.Header)
	}

	const burst = 400
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	statuses := map[int]int{}
	var failures []string
	var wg sync.WaitGroup
	for range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := get(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures = append(failures, err.Error())
				return
			}
			resp.Body.Close()
			statuses[resp.StatusCode]++
			switch {
			case resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "":
				failures = append(failures, "429 without Retry-After")
			case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusTooManyRequests:
				failures = append(failures, resp.Status)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d concurrent requests to one replica: answers by status %v", burst, statuses)
	if len(failures) > 0 {
		t.Fatalf("%d answers were neither 200 nor 429 with Retry-After, for example %q", len(failures), failures[0])
	}
	if err := env.readyz(context.Background(), config, ""); err != nil {
		t.Fatalf("the replica is not ready after the burst: %v", err)
	}
}
