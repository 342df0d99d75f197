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
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/process"
)

// benchServer serves every benchmark; TestMain stops it.
var (
	benchServer *server
	benchOnce   sync.Once
	benchErr    error
	// names makes the names of created templates unique across the runs of a benchmark.
	names atomic.Int64
)

func sharedServer(b *testing.B) *server {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "stencil-reliability-load")
		if err != nil {
			benchErr = err
			return
		}
		if benchServer, benchErr = newServer(dir); benchErr != nil {
			return
		}
		if benchErr = benchServer.start(); benchErr != nil {
			benchServer.dumpLog(b)
			return
		}
		benchErr = seedLoad(benchServer)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchServer
}

// seedLoad stores the template the GET and /processed requests read: OpenShift's
// mysql-persistent, a real template of a usual size (6 objects, 8 parameters).
func seedLoad(s *server) error {
	data, err := os.ReadFile(filepath.Join("..", "..", "pkg", "process", "testdata", "mysql-persistent.json"))
	if err != nil {
		return err
	}
	tpl, _, err := process.DecodeTemplate(data)
	if err != nil {
		return err
	}
	tpl.OpenShift = false
	tpl.ObjectMeta = metav1.ObjectMeta{Name: "mysql"}
	var versioned templatesv1.Template
	if err := templatesv1.Convert_templates_Template_To_v1alpha1_Template(tpl, &versioned, nil); err != nil {
		return err
	}
	cs, err := clientset.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	_, err = cs.TemplatesV1alpha1().Templates("load").Create(context.Background(), &versioned, metav1.CreateOptions{})
	return err
}

// BenchmarkLoad runs b.N requests of each kind from 16 and then 64 concurrent clients, each
// on its own connection, against one server, and reports requests/s, the median and 99th
// percentile latency and the errors. Run it with -benchtime=Nx for a fixed number of requests
// (the Makefile does); the errors, expected to be none, are the one thing it asserts.
func BenchmarkLoad(b *testing.B) {
	s := sharedServer(b)
	params := &templatesv1.TemplateParameters{Parameters: map[string]string{"MYSQL_USER": "load"}}
	ops := []struct {
		name string
		do   func(ctx context.Context, cs clientset.Interface) error
	}{
		{"GET", func(ctx context.Context, cs clientset.Interface) error {
			_, err := cs.TemplatesV1alpha1().Templates("load").Get(ctx, "mysql", metav1.GetOptions{})
			return err
		}},
		{"processed", func(ctx context.Context, cs clientset.Interface) error {
			_, err := cs.TemplatesV1alpha1().Templates("load").Process(ctx, "mysql", params, metav1.CreateOptions{})
			return err
		}},
		{"create", func(ctx context.Context, cs clientset.Interface) error {
			name := fmt.Sprintf("t%d", names.Add(1))
			_, err := cs.TemplatesV1alpha1().Templates("load").Create(ctx, newTemplate(name), metav1.CreateOptions{})
			return err
		}},
	}
	for _, op := range ops {
		for _, clients := range []int{16, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", op.name, clients), func(b *testing.B) {
				runLoad(b, s, clients, op.do)
			})
		}
	}
}

func runLoad(b *testing.B, s *server, clients int, do func(context.Context, clientset.Interface) error) {
	ctx := context.Background()
	cs := make([]clientset.Interface, clients)
	for i := range cs {
		cs[i] = s.client(b)
		// The connection's TLS handshake is not part of what is measured.
		if _, err := cs[i].Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
			b.Fatal(err)
		}
	}
	latencies := make([]time.Duration, b.N)
	var (
		next, failures atomic.Int64
		firstErr       error
		errOnce        sync.Once
		wg             sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// b.N requests in all, shared by the clients: the loop ends when they are taken.
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				begin := time.Now()
				err := do(ctx, cs[c])
				latencies[i] = time.Since(begin)
				if err != nil {
					failures.Add(1)
					errOnce.Do(func() { firstErr = err })
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(percentile(latencies, 50), "p50-ms")
	b.ReportMetric(percentile(latencies, 99), "p99-ms")
	b.ReportMetric(float64(failures.Load()), "errors")
	if failures.Load() > 0 {
		b.Fatalf("%d of %d requests failed; the first: %v", failures.Load(), b.N, firstErr)
	}
}

// percentile is the p-th percentile of sorted latencies, in milliseconds.
func percentile(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(len(sorted)*p/100, len(sorted)-1)
	return float64(sorted[i]) / float64(time.Millisecond)
}
