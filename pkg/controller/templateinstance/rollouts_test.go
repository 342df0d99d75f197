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

package templateinstance

import (
	"testing"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestMovesInstances: a write of a rollout's counts alone queues none of the Template's
// instances (each would read the Template for nothing); a new revision or the end of
// the rollout queues them all; a wave queues those it marks, by their own events.
func TestMovesInstances(t *testing.T) {
	at := func(revision int64, st *templatesv1.RolloutStatus) *templatesv1.Template {
		t := &templatesv1.Template{Revision: &templatesv1.RevisionStamp{Number: revision}, Rollout: &templatesv1.Rollout{}}
		if st != nil {
			t.Status = &templatesv1.TemplateStatus{Rollout: st}
		}
		return t
	}
	wave1 := &templatesv1.RolloutStatus{Revision: 2, Phase: templatesv1.RolloutProgressing, Moved: []string{"a"}, MovedCount: 1, Updated: 0}
	counted := &templatesv1.RolloutStatus{Revision: 2, Phase: templatesv1.RolloutProgressing, Moved: []string{"a"}, MovedCount: 1, Updated: 1}
	wave2 := &templatesv1.RolloutStatus{Revision: 2, Phase: templatesv1.RolloutProgressing, Moved: []string{"b"}, MovedCount: 2, Wave: 2}
	done := &templatesv1.RolloutStatus{Revision: 2, Phase: templatesv1.RolloutComplete}
	for _, tc := range []struct {
		name     string
		old, now *templatesv1.Template
		want     bool
	}{
		{"a new revision", at(1, nil), at(2, nil), true},
		{"the rollout starts", at(2, nil), at(2, wave1), true},
		{"counts only", at(2, wave1), at(2, counted), false},
		{"a wave: its instances are queued by their marks", at(2, counted), at(2, wave2), false},
		{"complete", at(2, wave2), at(2, done), true},
		{"the rollout removed", at(2, done), &templatesv1.Template{Revision: &templatesv1.RevisionStamp{Number: 2}}, true},
	} {
		if got := movesInstances(tc.old, tc.now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
