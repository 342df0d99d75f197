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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
)

// TestEvents: a rollout's steps are Events of its Template: Normal as it starts and moves on,
// Warning when it pauses itself (here, on a gate that does not hold).
func TestEvents(t *testing.T) {
	r := waves(intstr.FromInt32(1))
	r.Gate = "instances.all(i, i.labels.tier == 'canary')"
	f := newFixture(t, r, "a", "b")
	recorder := record.NewFakeRecorder(100)
	f.r.cfg.Recorder = recorder
	f.instance("a").Labels = map[string]string{"tier": "stable"}
	f.edit(2, "sha256:two", nil)
	f.sync()
	f.passes()
	f.sync()
	var events []string
	for len(recorder.Events) > 0 {
		events = append(events, <-recorder.Events)
	}
	all := strings.Join(events, "\n")
	if len(events) < 2 || !strings.HasPrefix(events[0], "Normal Rollout") || !strings.Contains(all, "Warning Rollout"+ReasonGateFailed) {
		t.Errorf("events:\n%s", all)
	}
}
