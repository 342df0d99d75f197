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
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// benchTemplate renders four objects, one of them holding a generated password (so each
// instance also gets its generated-values Secret), through a Starlark transformer (a plugin run
// per rendering, counted). The Service is headless: the suite's cluster has 254 Service IPs.
// description is NAME's description: changing it makes a revision that renders the same;
// rollout, YAML at the top level, is how the Template's instances move (none when "").
func benchTemplate(description, greeting, rollout string) string {
	return `apiVersion: templates.stencil.dev/v1alpha1
kind: Template
metadata: {name: bench}
parameters:
- {name: NAME, required: true, description: "` + description + `"}
- {name: GREETING, value: "` + greeting + `"}
- {name: PASSWORD, generate: expression, from: "[a-z0-9]{16}"}
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: "${NAME}"}, data: {greeting: "${GREETING}"}}
- {apiVersion: v1, kind: Secret, metadata: {name: "${NAME}"}, stringData: {password: "${PASSWORD}"}}
- {apiVersion: v1, kind: ServiceAccount, metadata: {name: "${NAME}"}}
- {apiVersion: v1, kind: Service, metadata: {name: "${NAME}"}, spec: {clusterIP: None, ports: [{port: 80}], selector: {app: "${NAME}"}}}
transformers:
- apiVersion: bench.stencil.dev/v1
  kind: ` + benchPlugin + `
  metadata: {name: stamp}
  provider:
    starlark:
      source: |
        for item in ctx.resource_list["items"]:
            item["metadata"].setdefault("annotations", {})["bench.stencil.dev/stamped"] = "true"
` + rollout
}

const (
	// benchInstances is how many instances the benchmark runs.
	benchInstances = 1000
	// benchNamespace holds them; the replicas run Starlark there only.
	benchNamespace = "bench-instances"
	// benchPlugin is the kind of the template's Starlark transformer, as metrics label runs.
	benchPlugin = "BenchStamp"
)

// BenchmarkTemplateInstances runs 1,000 instances of a 4-object template through the e2e
// cluster, phase by phase, each a sub-benchmark reporting seconds, apply calls (real and
// dry-run, counted by kube-apiserver), plugin runs (counted by the replicas) and the leader's
// Go heap and resident memory: cold (create them all at once, until every one is Ready),
// resync (the leader stops; the other replica starts cold and looks at every unchanged
// instance: nothing to apply, nothing to render), same-render (a new revision that renders
// the same objects: every instance is rendered and compared with the hash it applied),
// preview (a change of a default classified for every instance through
// templates/bench/preview), rollout and undo (rollout_bench_test.go). It is a benchmark, not a
// test: nothing fails on time. Run it with -benchtime 1x (make bench-instances): each phase
// starts from the last.
func BenchmarkTemplateInstances(b *testing.B) {
	if err := env.restartReplicasWith([]string{"--starlark-namespaces=" + benchNamespace}, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := env.kubectl("admin", "", "create", "namespace", benchNamespace); err != nil {
		b.Fatal(err)
	}
	if _, err := env.kubectl("admin", benchTemplate("the name", "hello", ""), "apply", "-n", benchNamespace, "-f", "-"); err != nil {
		b.Fatal(err)
	}
	cs := stencilAdmin(b)
	b.Logf("load average before: %s", machineLoad())
	once := func(name string, phase func(b *testing.B, lead int)) {
		b.Run(name, func(b *testing.B) {
			if b.N != 1 {
				b.Skip("each phase starts from the state the last left: run with -benchtime 1x")
			}
			phase(b, leader(b))
		})
	}
	once("phase=cold", func(b *testing.B, lead int) {
		heapBefore, rssBefore := replicaMemory(b, lead)
		before := benchCounts(b, benchPlugin, lead)
		start := time.Now()
		createInstances(b, cs, benchNamespace, benchInstances)
		created := time.Since(start)
		allInstances(b, cs, benchNamespace, benchInstances, "every instance Ready", ready)
		took := time.Since(start)
		before.report(b, benchCounts(b, benchPlugin, lead))
		heap, rss := reportLeaderMemory(b, lead)
		b.ReportMetric(took.Seconds(), "s-to-all-ready")
		b.ReportMetric(created.Seconds(), "s-to-create")
		b.ReportMetric(benchInstances/took.Seconds(), "instances/s")
		b.Logf("cold: created in %s, all Ready after %s; leader heap %.0f -> %.0f MB, RSS %.0f -> %.0f MB; load %s",
			created.Round(time.Millisecond), took.Round(time.Millisecond), heapBefore/1e6, heap/1e6, rssBefore/1e6, rss/1e6, machineLoad())
	})
	once("phase=resync", func(b *testing.B, lead int) {
		benchResync(b, lead)
	})
	once("phase=same-render", func(b *testing.B, lead int) {
		queueIdle(b, lead, 0, 0)
		b.ResetTimer()
		before := benchCounts(b, benchPlugin, lead)
		start := time.Now()
		if _, err := env.kubectl("admin", benchTemplate("the name of every object", "hello", ""), "apply", "-n", benchNamespace, "-f", "-"); err != nil {
			b.Fatal(err)
		}
		allInstances(b, cs, benchNamespace, benchInstances, "every instance Ready on revision 2", func(ti *templatesv1.TemplateInstance) bool {
			return ready(ti) && ti.Status.TemplateRevision != nil && ti.Status.TemplateRevision.Number == 2
		})
		took := time.Since(start)
		before.report(b, benchCounts(b, benchPlugin, lead))
		reportLeaderMemory(b, lead)
		b.ReportMetric(took.Seconds(), "s-to-all-moved")
		b.Logf("a revision that renders the same, for %d instances: all on it after %s; load %s", benchInstances, took.Round(time.Millisecond), machineLoad())
	})
	once("phase=preview", func(b *testing.B, lead int) {
		queueIdle(b, lead, 0, 0)
		b.ResetTimer()
		benchPreview(b, cs, lead)
	})
	benchRolloutPhases(b, once, cs)
}

// benchResync stops the leader: the other replica takes the Lease, lists the 1,000
// instances and looks at every one, applying nothing, as every leader does when its term
// starts (and the informers' resync every 10 minutes). It reports how long that took from the
// stop and the new leader's memory, which starts cold; the stopped replica starts again after.
func benchResync(b *testing.B, lead int) {
	queueIdle(b, lead, 0, 0)
	next := (lead + 1) % len(env.replicas)
	b.ResetTimer()
	before := benchCounts(b, benchPlugin, next)
	heapBefore, rssBefore := replicaMemory(b, next)
	start := time.Now()
	env.replicas[lead].stop()
	if got := leader(b); got != next {
		b.Fatalf("replica %d leads, want %d", got, next)
	}
	queueIdle(b, next, before.queueAdds, benchInstances)
	took := time.Since(start)
	before.report(b, benchCounts(b, benchPlugin, next))
	heap, rss := reportLeaderMemory(b, next)
	b.ReportMetric(took.Seconds(), "s-to-idle")
	b.StopTimer()
	if err := env.restartReplica(lead); err != nil {
		b.Fatal(err)
	}
	b.Logf("resync: replica %d stopped, replica %d leads and looked at every instance after %s; its heap %.0f -> %.0f MB, RSS %.0f -> %.0f MB; load %s",
		lead, next, took.Round(time.Millisecond), heapBefore/1e6, heap/1e6, rssBefore/1e6, rss/1e6, machineLoad())
}

// benchPreview previews a change of GREETING's default for every instance, three times
// (the first fills the plan cache), and reports the slowest and the median.
func benchPreview(b *testing.B, cs clientset.Interface, lead int) {
	before := benchCounts(b, benchPlugin, lead)
	raw, err := yaml.YAMLToJSON([]byte(benchTemplate("the name of every object", "bonjour", "")))
	if err != nil {
		b.Fatal(err)
	}
	candidate := runtime.RawExtension{Raw: raw}
	var took []time.Duration
	for range 3 {
		start := time.Now()
		out, err := cs.TemplatesV1alpha1().Templates(benchNamespace).Preview(context.Background(), "bench",
			&templatesv1.TemplatePreview{Spec: templatesv1.TemplatePreviewSpec{Template: &candidate}}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		st := out.Status
		if len(st.Instances) != benchInstances || st.Counts["Changed"] != benchInstances/2 || st.Counts["Unchanged"] != benchInstances/2 {
			b.Fatalf("classified %d instances: %v", len(st.Instances), st.Counts)
		}
	}
	after := benchCounts(b, benchPlugin, lead)
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(took[1].Seconds(), "s-median")
	b.ReportMetric(took[2].Seconds(), "s-slowest")
	b.ReportMetric(benchInstances, "instances-classified")
	b.ReportMetric(before.pluginRunsSince(after)/3, "plugin-runs/preview")
	b.Logf("preview of %d instances: %v; load %s", benchInstances, took, machineLoad())
}

// ready says the instance is Ready for its current spec.
func ready(ti *templatesv1.TemplateInstance) bool {
	c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == ti.Generation
}

// createInstances creates n instances of Template bench at once (32 clients in parallel);
// the odd ones set GREETING themselves.
func createInstances(b *testing.B, cs clientset.Interface, ns string, n int) {
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range next {
				params := map[string]string{"NAME": fmt.Sprintf("i%04d", i)}
				if i%2 == 1 {
					params["GREETING"] = "hi"
				}
				_, err := cs.TemplatesV1alpha1().TemplateInstances(ns).Create(context.Background(), &templatesv1.TemplateInstance{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("i%04d", i)},
					Spec:       templatesv1.TemplateInstanceSpec{TemplateRef: &templatesv1.TemplateReference{Name: "bench"}, Parameters: params},
				}, metav1.CreateOptions{})
				errs <- err
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
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
