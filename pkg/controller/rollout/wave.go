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

package rollout

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process/celgate"
)

// checkWave looks at the wave under way: it waits (a positive duration: until the timeout)
// while some of its instances do not run the revision and are not Ready, pauses the rollout
// once the timeout has passed or when the gate is false, and otherwise leaves st as it is for
// the next wave. An instance of the wave deleted, pinned or made Manual since is not waited
// for.
func (r *Reconciler) checkWave(ctx context.Context, t *templatesv1.Template, st *templatesv1.RolloutStatus,
	instances []*templatesv1.TemplateInstance, now time.Time, timeout time.Duration) (time.Duration, error) {
	var wave []*templatesv1.TemplateInstance
	var failed []templatesv1.RolloutFailure
	for _, ti := range instances {
		if MovedIn(ti, st.Revision, t.UID) != st.Wave {
			continue
		}
		wave = append(wave, ti)
		if done, reason, message := verdict(ti, st.Revision); !done {
			failed = append(failed, templatesv1.RolloutFailure{Name: ti.Name, Reason: reason, Message: clip(message)})
		}
	}
	if len(failed) > 0 {
		started := now
		if st.WaveStartTime != nil {
			started = st.WaveStartTime.Time
		}
		if left := timeout - now.Sub(started); left > 0 {
			return left, nil
		}
		pause(st, ReasonWaveTimeout, fmt.Sprintf("wave %d of %d: %d of its %d instances did not run revision %d and turn Ready within %s; "+
			"the others stay on the revisions they run", st.Wave, st.Waves, len(failed), len(wave), st.Revision, timeout), failed)
		return 0, nil
	}
	if t.Rollout.Gate == "" || st.Undo || len(wave) == 0 || st.Reason == ReasonResumedPastGate {
		return 0, nil
	}
	gate, err := celgate.Compile(t.Rollout.Gate)
	var holds bool
	if err == nil {
		holds, err = gate.Eval(ctx, gateInstances(wave), int(st.Wave), int(st.Waves))
	}
	switch {
	case err != nil:
		pause(st, ReasonGateError, fmt.Sprintf("wave %d of %d: %v", st.Wave, st.Waves, err), nil)
	case !holds:
		for _, ti := range wave {
			failed = append(failed, templatesv1.RolloutFailure{Name: ti.Name, Reason: ReasonGateFailed, Message: "the gate is false for this wave"})
		}
		pause(st, ReasonGateFailed, fmt.Sprintf("wave %d of %d: the gate %q is false for its instances", st.Wave, st.Waves, t.Rollout.Gate), failed)
	}
	return 0, nil
}

// gateInstances are the wave's instances as the gate sees them.
func gateInstances(wave []*templatesv1.TemplateInstance) []celgate.Instance {
	out := make([]celgate.Instance, len(wave))
	for i, ti := range wave {
		conditions := make(map[string]celgate.Condition, len(ti.Status.Conditions))
		for _, c := range ti.Status.Conditions {
			conditions[c.Type] = celgate.Condition{Status: string(c.Status), Reason: c.Reason, Message: c.Message}
		}
		in := celgate.Instance{Name: ti.Name, Namespace: ti.Namespace, Labels: ti.Labels, Annotations: ti.Annotations,
			Ready: meta.IsStatusConditionTrue(ti.Status.Conditions, templatesv1.TemplateInstanceReady), Revision: running(ti), Conditions: conditions}
		if r := ti.Status.TemplateRevision; r != nil {
			in.AppliedHash = r.AppliedHash
		}
		out[i] = in
	}
	return out
}

// clip keeps a failure's message short: the status names many instances.
func clip(s string) string {
	if len(s) > 512 {
		return s[:512] + "..."
	}
	return s
}
