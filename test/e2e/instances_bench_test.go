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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// benchTemplate renders four objects, one of them holding a generated password (so each
// instance also gets its generated-values Secret). The Service is headless: the suite's
// cluster has 254 Service IPs, fewer than two rounds need.
const benchTemplate = `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: bench}
parameters:
- {name: NAME, required: true}
- {name: PASSWORD, generate: expression, from: "[a-z0-9]{16}"}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}"}, data: {a: b}}
- {apiVersion: v1, kind: Secret, metadata: {name: "${NAME}"}, stringData: {password: "${PASSWORD}"}}
- {apiVersion: v1, kind: ServiceAccount, metadata: {name: "${NAME}"}}
- {apiVersion: v1, kind: Service, metadata: {name: "${NAME}"}, spec: {clusterIP: None, ports: [{port: 80}], selector: {app: "${NAME}"}}}
`

// benchInstances is how many instances one round creates at once.
const benchInstances = 200

// BenchmarkTemplateInstances creates 200 instances of a 4-object template at once and waits
// until every one is Ready. It reports the time that took, instances per second, and how
// much the leader's Go heap and resident memory grew per instance. It is a benchmark, not a
// test: nothing fails on time (make bench-instances).
func BenchmarkTemplateInstances(b *testing.B) {
	ctx := context.Background()
	for round := 0; round < b.N; round++ {
		ns := fmt.Sprintf("bench-instances-%d-%d", time.Now().Unix(), round)
		if _, err := env.kubectl("admin", "", "create", "namespace", ns); err != nil {
			b.Fatal(err)
		}
		if _, err := env.kubectl("admin", benchTemplate, "apply", "-n", ns, "-f", "-"); err != nil {
			b.Fatal(err)
		}
		cs := stencilAdmin(b)
		lead := leader(b)
		heapBefore, rssBefore := replicaMemory(b, lead)

		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, benchInstances)
		for i := 0; i < benchInstances; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := cs.TemplatesV1alpha1().TemplateInstances(ns).Create(ctx, &templatesv1.TemplateInstance{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("i%03d", i)},
					Spec: templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "bench"},
						Parameters: map[string]string{"NAME": fmt.Sprintf("i%03d", i)}},
				}, metav1.CreateOptions{})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		created := time.Since(start)
		err := waitFor(10*time.Minute, "every instance Ready", func(ctx context.Context) error {
			list, err := cs.TemplatesV1alpha1().TemplateInstances(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			ready := 0
			for i := range list.Items {
				if meta.IsStatusConditionTrue(list.Items[i].Status.Conditions, templatesv1.TemplateInstanceReady) {
					ready++
				}
			}
			if ready < benchInstances {
				return fmt.Errorf("%d of %d Ready", ready, benchInstances)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		b.StopTimer()
		heapAfter, rssAfter := replicaMemory(b, lead)
		b.ReportMetric(took.Seconds(), "s-to-all-ready")
		b.ReportMetric(created.Seconds(), "s-to-create")
		b.ReportMetric(benchInstances/took.Seconds(), "instances/s")
		b.ReportMetric((heapAfter-heapBefore)/benchInstances, "heap-B/instance")
		b.ReportMetric((rssAfter-rssBefore)/benchInstances, "rss-B/instance")
		b.Logf("%d instances (%d objects each, plus a generated-values Secret): created in %s, all Ready after %s; leader heap %.0f -> %.0f MB, RSS %.0f -> %.0f MB",
			benchInstances, 4, created.Round(time.Millisecond), took.Round(time.Millisecond), heapBefore/1e6, heapAfter/1e6, rssBefore/1e6, rssAfter/1e6)
	}
}

// replicaMemory reads replica i's Go heap in use and resident memory from its /metrics.
func replicaMemory(tb testing.TB, i int) (heap, rss float64) {
	config, err := env.replicaConfig(i)
	if err != nil {
		tb.Fatal(err)
	}
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := client.Get(config.Host + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "go_memstats_heap_inuse_bytes "); ok {
			heap, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
			rss, _ = strconv.ParseFloat(v, 64)
		}
	}
	if heap == 0 || rss == 0 {
		tb.Fatalf("replica %d's /metrics has no go_memstats_heap_inuse_bytes or process_resident_memory_bytes", i)
	}
	return heap, rss
}
