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
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact"
)

// fluxRounds is how many times each path is measured; the benchmark reports the medians.
const fluxRounds = 5

// BenchmarkFluxDelivery measures, on the e2e cluster, how long a published TemplateInstance
// takes to be applied by kustomize-controller: from the instance's creation until it is Ready
// (Flux reports its artifact applied and Ready), and from a parameter change until the same for
// the new artifact; beside it, in the same run, the baseline of Flux itself: from an
// ExternalArtifact's status naming a new artifact until the Kustomization reports it applied.
// The medians of five rounds are the metrics. It is a benchmark, not a test: nothing fails on
// time. Run it with -benchtime 1x (make bench-flux).
func BenchmarkFluxDelivery(b *testing.B) {
	if b.N != 1 {
		b.Skip("each round creates objects of its own: run with -benchtime 1x")
	}
	needFlux(b)
	const ns = "bench-flux"
	fluxTenant(b, ns)
	user := fluxPublisher(b, ns, "publisher")
	mustKubectlTB(b, user, fluxWebTemplate, "apply", "-n", ns, "-f", "-")
	b.Logf("load average before: %s", machineLoad())

	var baseline, first, update []time.Duration
	files := serveArtifactFiles(b)
	for round := 0; round < fluxRounds; round++ {
		// Flux's own figure: a producer names a new artifact; the Kustomization applies it.
		plain := fmt.Sprintf("plain-%d", round)
		a, err := artifact.Build(configMapObjects(ns, map[string]string{plain: fmt.Sprint(round)}), artifact.DefaultLimits)
		if err != nil {
			b.Fatal(err)
		}
		files.put("/"+plain+".tar.gz", a.Archive)
		rev := artifact.Revision("v1", a.Digest)
		mustKubectlTB(b, "admin", kustomizationYAML(ns, plain, plain), "apply", "-f", "-")
		start := time.Now()
		setExternalArtifact(b, ns, plain, files.url+"/"+plain+".tar.gz", rev, a.Digest, len(a.Archive))
		waitKustomization(b, ns, plain, 2*time.Minute, "the plain artifact applied", appliedRevision(rev))
		baseline = append(baseline, time.Since(start))

		// A published instance, created: until it is Ready.
		name := fmt.Sprintf("web-%d", round)
		mustKubectlTB(b, user, kustomizationYAML(ns, name, name), "apply", "-f", "-")
		start = time.Now()
		mustKubectlTB(b, user, publishedInstanceYAML(name, "web", "GREETING: hello", ""), "apply", "-n", ns, "-f", "-")
		ti := benchWaitInstance(b, ns, name, func(ti *templatesv1.TemplateInstance) bool { return publishedReady(ti) == nil })
		first = append(first, time.Since(start))

		// A parameter change: until it is Ready on the new artifact.
		was := ti.Status.Artifact.Revision
		start = time.Now()
		mustKubectlTB(b, user, publishedInstanceYAML(name, "web", "GREETING: hola", ""), "apply", "-n", ns, "-f", "-")
		benchWaitInstance(b, ns, name, func(ti *templatesv1.TemplateInstance) bool {
			return publishedReady(ti) == nil && ti.Status.Artifact.Revision != was
		})
		update = append(update, time.Since(start))
	}
	b.ReportMetric(median(baseline).Seconds(), "s-flux-baseline")
	b.ReportMetric(median(first).Seconds(), "s-first-apply")
	b.ReportMetric(median(update).Seconds(), "s-update")
	b.Logf("medians of %d rounds: Flux alone %s %v, first apply %s %v, update %s %v; load %s", fluxRounds,
		median(baseline), baseline, median(first), first, median(update), update, machineLoad())
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchWaitInstance polls the instance every 50 ms until ready holds: the poll adds at most
// that to a figure.
func benchWaitInstance(b *testing.B, ns, name string, ready func(*templatesv1.TemplateInstance) bool) *templatesv1.TemplateInstance {
	b.Helper()
	cs := stencilAdmin(b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		ti, err := cs.TemplatesV1alpha1().TemplateInstances(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && ready(ti) {
			return ti
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%s/%s not Ready within 2m: %v %+v", ns, name, err, ti)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
