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
	"testing"

	"stencil.dev/stencil/pkg/apis/templates"
)

func TestHolds(t *testing.T) {
	at := func(rollout bool, st *templates.RolloutStatus) *templates.Template {
		t := &templates.Template{Revision: &templates.RevisionStamp{Number: 2}}
		if rollout {
			t.Rollout = &templates.Rollout{}
		}
		if st != nil {
			t.Status = &templates.TemplateStatus{Rollout: st}
		}
		return t
	}
	progressing := &templates.RolloutStatus{Revision: 2, Phase: templates.RolloutPaused, Moved: []string{"a"}}
	for _, tc := range []struct {
		name    string
		t       *templates.Template
		ti      string
		running int64
		want    bool
	}{
		{"no rollout: everyone moves", at(false, nil), "b", 1, false},
		{"the rollout has not started: nobody runs ahead", at(true, nil), "b", 1, true},
		{"the rollout of an older revision", at(true, &templates.RolloutStatus{Revision: 1, Phase: templates.RolloutComplete}), "b", 1, true},
		{"moved", at(true, progressing), "a", 1, false},
		{"not moved, paused", at(true, progressing), "b", 1, true},
		{"never applied: takes the current", at(true, progressing), "c", 0, false},
		{"already there", at(true, progressing), "b", 2, false},
		{"complete", at(true, &templates.RolloutStatus{Revision: 2, Phase: templates.RolloutComplete}), "b", 1, false},
	} {
		if got := Holds(tc.t, tc.ti, tc.running); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}
