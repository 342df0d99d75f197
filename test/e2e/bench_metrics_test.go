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
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// The instance benchmarks count what the cluster did from the servers' own /metrics: applies
// from kube-apiserver's apiserver_request_total (verb APPLY, real or dry-run), plugin runs from
// every replica's stencil_transformer_duration_seconds_count, and the controller's queue from
// the leader's workqueue series. Each phase reports the difference over it.

// promText reads the Prometheus text of /metrics at host (the kube-apiserver when "").
func promText(tb testing.TB, config *rest.Config) string {
	tb.Helper()
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := client.Get(strings.TrimSuffix(config.Host, "/") + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(body)
}

// promSum adds the samples of series name whose labels include every pair of want.
func promSum(text, name string, want map[string]string) float64 {
	var sum float64
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		labels, value := "", rest
		if strings.HasPrefix(rest, "{") {
			end := strings.LastIndex(rest, "}")
			if end < 0 {
				continue
			}
			labels, value = rest[1:end], rest[end+1:]
		}
		match := true
		for k, v := range want {
			if !strings.Contains(","+labels+",", ","+k+"=\""+v+"\",") {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			sum += f
		}
	}
	return sum
}

// counts are the counters a phase reports as differences.
type counts struct {
	applies, dryRuns, gets, queueAdds float64
	// pluginRuns are by replica: a replica stopped or started again in between counts only
	// for what it ran while it ran.
	pluginRuns map[int]float64
}

// pluginRunsSince adds up the plugin runs of every replica read both times.
func (before counts) pluginRunsSince(after counts) float64 {
	var n float64
	for i, runs := range after.pluginRuns {
		if was, ok := before.pluginRuns[i]; ok && runs >= was {
			n += runs - was
		}
	}
	return n
}

// benchCounts reads the counters now: apply and get calls at kube-apiserver, runs of the
// transformer kind plugin on every replica, the leader's queue adds.
func benchCounts(tb testing.TB, plugin string, lead int) counts {
	tb.Helper()
	kube := promText(tb, env.restConfig("admin"))
	c := counts{pluginRuns: map[int]float64{}}
	c.applies = promSum(kube, "apiserver_request_total", map[string]string{"verb": "APPLY", "dry_run": ""})
	c.dryRuns = promSum(kube, "apiserver_request_total", map[string]string{"verb": "APPLY", "dry_run": "All"})
	c.gets = promSum(kube, "apiserver_request_total", map[string]string{"verb": "GET", "group": "", "scope": "resource"})
	for i := range env.replicas {
		if env.replicas[i].cmd == nil {
			continue // stopped
		}
		config, err := env.replicaConfig(i)
		if err != nil {
			tb.Fatal(err)
		}
		text := promText(tb, config)
		c.pluginRuns[i] = promSum(text, "stencil_transformer_duration_seconds_count", map[string]string{"kind": plugin})
		if i == lead {
			c.queueAdds = promSum(text, "workqueue_adds_total", map[string]string{"name": "stencil_templateinstance"})
		}
	}
	return c
}

// report reports what happened between before and after, per phase.
func (before counts) report(b *testing.B, after counts) {
	b.ReportMetric(after.applies-before.applies, "apply-calls")
	b.ReportMetric(after.dryRuns-before.dryRuns, "dry-run-applies")
	b.ReportMetric(before.pluginRunsSince(after), "plugin-runs")
	b.ReportMetric(after.gets-before.gets, "object-gets")
}

// reportLeaderMemory reports the leader's Go heap in use and resident memory, in MB.
func reportLeaderMemory(b *testing.B, lead int) (heap, rss float64) {
	heap, rss = replicaMemory(b, lead)
	b.ReportMetric(heap/1e6, "leader-heap-MB")
	b.ReportMetric(rss/1e6, "leader-rss-MB")
	return heap, rss
}

// queueIdle waits until the leader's queue has taken at least adds more items than before
// and holds none, in flight or waiting.
func queueIdle(tb testing.TB, lead int, before, adds float64) {
	tb.Helper()
	config, err := env.replicaConfig(lead)
	if err != nil {
		tb.Fatal(err)
	}
	err = waitFor(10*time.Minute, "the controller's queue idle", func(context.Context) error {
		text := promText(tb, config)
		q := map[string]string{"name": "stencil_templateinstance"}
		got := promSum(text, "workqueue_adds_total", q) - before
		depth, unfinished := promSum(text, "workqueue_depth", q), promSum(text, "workqueue_unfinished_work_seconds", q)
		if got < adds || depth > 0 || unfinished > 0 {
			return fmt.Errorf("%.0f of %.0f adds, depth %.0f, unfinished work %.1fs", got, adds, depth, unfinished)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// allInstances waits until every one of n instances of the namespace passes check: one list,
// then a watch of what changes (listing a thousand instances again and again would take the
// CPU the controller is measured with).
func allInstances(tb testing.TB, cs clientset.Interface, ns string, n int, what string, check func(*templatesv1.TemplateInstance) bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	passing := map[string]bool{}
	last := ""
	see := func(ti *templatesv1.TemplateInstance) {
		passing[ti.Name] = check(ti)
		if c := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady); !passing[ti.Name] && c != nil {
			last = ti.Name + ": " + c.Reason + ": " + c.Message
		}
	}
	count := func() int {
		ok := 0
		for _, p := range passing {
			if p {
				ok++
			}
		}
		return ok
	}
	for ctx.Err() == nil {
		list, err := cs.TemplatesV1alpha1().TemplateInstances(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for i := range list.Items {
			see(&list.Items[i])
		}
		if count() >= n {
			return
		}
		w, err := cs.TemplatesV1alpha1().TemplateInstances(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
		if err != nil {
			continue
		}
		for event := range w.ResultChan() {
			if ti, ok := event.Object.(*templatesv1.TemplateInstance); ok {
				see(ti)
				if count() >= n {
					w.Stop()
					return
				}
			}
		}
		w.Stop()
	}
	tb.Fatalf("%s: not within 10 minutes: %d of %d (%s)", what, count(), n, last)
}

// machineLoad is the load average, for the log: the figures mean little without it.
func machineLoad() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
