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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/rollout"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
)

// benchRollout moves the Template in four waves (10, 25%, 50%, 100% of the instances); its
// gate is false from the third wave on, as a health check failing there would be, so the
// rollout pauses once the third wave's instances run the new revision and are Ready.
const benchRollout = `rollout:
  waves: [10, "25%", "50%", "100%"]
  gate: "wave < 3"
  timeout: 5m
`

// benchFailingWave is the wave whose gate fails, and benchFailingWaveTarget how many
// instances run the new revision once it is done (50% of 1,000).
const (
	benchFailingWave       = 3
	benchFailingWaveTarget = benchInstances / 2
)

// benchRolloutPhases are the rollout's phases of BenchmarkTemplateInstances: rollout (a
// change of GREETING's default rolled out until the third wave's gate pauses it) and undo
// (stencil rollout undo: every instance back, until all are Ready on the content before).
func benchRolloutPhases(b *testing.B, once func(string, func(*testing.B, int)), cs clientset.Interface) {
	var from int64
	once("phase=rollout", func(b *testing.B, lead int) {
		// The rollout itself is no content: setting it makes no revision.
		mustApplyBench(b, benchTemplate("the name of every object", "hello", benchRollout))
		from = templateRevision(b, cs)
		queueIdle(b, lead, 0, 0)
		b.ResetTimer()
		before := benchCounts(b, benchPlugin, lead)
		start := time.Now()
		mustApplyBench(b, benchTemplate("the name of every object", "hola", benchRollout))
		to := templateRevision(b, cs)
		st := waitBenchRollout(b, cs, "paused by the gate of wave 3", func(st *templatesv1.RolloutStatus) bool {
			return st.Revision == to && st.Phase == templatesv1.RolloutPaused
		})
		took := time.Since(start)
		queueIdle(b, lead, 0, 0)
		before.report(b, benchCounts(b, benchPlugin, lead))
		reportLeaderMemory(b, lead)
		list, err := cs.TemplatesV1alpha1().TemplateInstances(benchNamespace).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		tpl, err := cs.TemplatesV1alpha1().Templates(benchNamespace).Get(context.Background(), "bench", metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		onNew, beyond := 0, 0
		for i := range list.Items {
			ti := &list.Items[i]
			r := ti.Status.TemplateRevision
			if r != nil && r.Number == to {
				onNew++
			}
			// Each instance a wave moved says so in its own annotation.
			if rollout.MovedIn(ti, to, tpl.UID) == 0 && (r == nil || r.Number != from) {
				beyond++
			}
		}
		if st.Wave != benchFailingWave || st.Reason != "GateFailed" {
			b.Errorf("the rollout paused at wave %d (%s: %s), want wave %d by its gate", st.Wave, st.Reason, st.Message, benchFailingWave)
		}
		b.ReportMetric(took.Seconds(), "s-to-pause")
		b.ReportMetric(float64(onNew), "instances-moved")
		b.ReportMetric(float64(beyond), "instances-beyond-wave")
		b.ReportMetric(float64(onNew-benchFailingWaveTarget), "moved-past-target")
		b.Logf("rollout of revision %d: paused at wave %d (%s) after %s, %d instances on it (target %d), %d beyond the wave changed; load %s",
			to, st.Wave, st.Reason, took.Round(time.Millisecond), onNew, benchFailingWaveTarget, beyond, machineLoad())
	})
	once("phase=undo", func(b *testing.B, lead int) {
		before := benchCounts(b, benchPlugin, lead)
		start := time.Now()
		if _, err := env.kubectl("admin", "", "stencil", "rollout", "undo", "bench", "-n", benchNamespace); err != nil {
			b.Fatal(err)
		}
		to := templateRevision(b, cs)
		allInstances(b, cs, benchNamespace, benchInstances, "every instance Ready on the undo's revision", func(ti *templatesv1.TemplateInstance) bool {
			return ready(ti) && ti.Status.TemplateRevision != nil && ti.Status.TemplateRevision.Number == to
		})
		took := time.Since(start)
		before.report(b, benchCounts(b, benchPlugin, lead))
		reportLeaderMemory(b, lead)
		b.ReportMetric(took.Seconds(), "s-to-all-ready")
		st := waitBenchRollout(b, cs, "the undo complete", func(st *templatesv1.RolloutStatus) bool {
			return st.Revision == to && st.Phase == templatesv1.RolloutComplete
		})
		b.Logf("undo to revision %d (the content of revision %d): all %d Ready after %s, rollout %s; load %s",
			to, from, benchInstances, took.Round(time.Millisecond), st.Phase, machineLoad())
	})
}

// mustApplyBench applies a version of the bench Template as admin.
func mustApplyBench(b *testing.B, template string) {
	if _, err := env.kubectl("admin", template, "apply", "-n", benchNamespace, "-f", "-"); err != nil {
		b.Fatal(err)
	}
}

// templateRevision is the bench Template's revision number now.
func templateRevision(b *testing.B, cs clientset.Interface) int64 {
	t, err := cs.TemplatesV1alpha1().Templates(benchNamespace).Get(context.Background(), "bench", metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if t.Revision == nil {
		b.Fatal("the bench Template has no revision")
	}
	return t.Revision.Number
}

// waitBenchRollout waits until the bench Template's rollout status passes check.
func waitBenchRollout(b *testing.B, cs clientset.Interface, what string, check func(*templatesv1.RolloutStatus) bool) *templatesv1.RolloutStatus {
	var st *templatesv1.RolloutStatus
	err := waitFor(10*time.Minute, what, func(ctx context.Context) error {
		t, err := cs.TemplatesV1alpha1().Templates(benchNamespace).Get(ctx, "bench", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if t.Status == nil || t.Status.Rollout == nil || !check(t.Status.Rollout) {
			time.Sleep(300 * time.Millisecond)
			if t.Status != nil && t.Status.Rollout != nil {
				r := t.Status.Rollout
				return fmt.Errorf("rollout of revision %d: %s, wave %d of %d, %s: %s", r.Revision, r.Phase, r.Wave, r.Waves, r.Reason, r.Message)
			}
			return fmt.Errorf("no rollout status")
		}
		st = t.Status.Rollout
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return st
}
