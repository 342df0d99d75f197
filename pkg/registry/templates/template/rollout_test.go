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

package template

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestRolloutIsNotContent: changing how a Template rolls out (its waves, pausing it) makes no
// revision and leaves the author; a client cannot write the status through the Template
// (create or update), only templates/status can, and that keeps the content as stored.
func TestRolloutIsNotContent(t *testing.T) {
	s := newTestStrategy()
	ctx := context.Background()
	v1 := newTemplate()
	v1.Status = &templates.TemplateStatus{Rollout: &templates.RolloutStatus{Revision: 9, Moved: []string{"forged"}}}
	s.PrepareForCreate(ctx, v1)
	if v1.Status != nil {
		t.Errorf("create kept a client's status %+v", v1.Status)
	}
	paused := v1.DeepCopy()
	paused.Rollout = &templates.Rollout{Waves: []intstr.IntOrString{intstr.FromInt(1)}, Paused: true}
	paused.Author = nil
	s.PrepareForUpdate(ctx, paused, v1)
	if *paused.Revision != *v1.Revision {
		t.Errorf("a change of the rollout made revision %+v after %+v", paused.Revision, v1.Revision)
	}

	stored := paused.DeepCopy()
	stored.Status = &templates.TemplateStatus{Rollout: &templates.RolloutStatus{Revision: 1, Phase: templates.RolloutComplete}}
	forged := stored.DeepCopy()
	forged.Status.Rollout.Moved = []string{"everyone"}
	s.PrepareForUpdate(ctx, forged, stored)
	if len(forged.Status.Rollout.Moved) != 0 {
		t.Errorf("an update of the Template wrote the status: %+v", forged.Status.Rollout)
	}

	status := statusStrategy{s.(templateStrategy)}
	write := stored.DeepCopy()
	write.Message = "sneaked in through the status"
	write.Status.Rollout.Phase = templates.RolloutPaused
	status.PrepareForUpdate(ctx, write, stored)
	if write.Message != stored.Message || write.Status.Rollout.Phase != templates.RolloutPaused {
		t.Errorf("templates/status: message %q, phase %s; want the stored message and the new status", write.Message, write.Status.Rollout.Phase)
	}
}

// TestRolloutGateIsChecked: a gate that does not compile is a 422 at rollout.gate.
func TestRolloutGateIsChecked(t *testing.T) {
	s := newTestStrategy()
	tpl := newTemplate()
	tpl.Rollout = &templates.Rollout{Gate: "instances.size()"}
	errs := s.Validate(context.Background(), tpl)
	if len(errs) != 1 || errs[0].Field != "rollout.gate" || !strings.Contains(errs[0].Detail, "true or false") {
		t.Errorf("errors %v, want one at rollout.gate", errs)
	}
	tpl.Rollout.Gate = "instances.all(i, i.ready)"
	if errs := s.Validate(context.Background(), tpl); len(errs) != 0 {
		t.Errorf("a good gate: %v", errs)
	}
}

// TestTableRollout: kubectl get templates -o wide shows the revision and the rollout.
func TestTableRollout(t *testing.T) {
	tpl := newTemplate()
	tpl.Revision = &templates.RevisionStamp{Number: 2}
	list := &templates.TemplateList{Items: []templates.Template{*tpl, *tpl, *tpl}}
	list.Items[1].Rollout = &templates.Rollout{}
	list.Items[2].Rollout = &templates.Rollout{}
	list.Items[2].Status = &templates.TemplateStatus{Rollout: &templates.RolloutStatus{Revision: 2, Phase: templates.RolloutPaused,
		Reason: "WaveTimeout", Updated: 1, Total: 3}}
	table, err := tableConvertor{}.ConvertToTable(context.Background(), list, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"-", "Pending", "Paused (WaveTimeout) 1/3"} {
		cells := table.Rows[i].Cells
		if len(cells) != len(columns) || cells[4] != int64(2) || cells[5] != want {
			t.Errorf("row %d: %v, want revision 2 and rollout %q", i, cells, want)
		}
	}
}
