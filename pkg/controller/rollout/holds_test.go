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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"stencil.dev/stencil/pkg/apis/templates"
	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func TestHolds(t *testing.T) {
	at := func(rollout bool, st *templates.RolloutStatus) *templates.Template {
		t := &templates.Template{ObjectMeta: metav1.ObjectMeta{UID: "app-uid"}, Revision: &templates.RevisionStamp{Number: 2}}
		if rollout {
			t.Rollout = &templates.Rollout{}
		}
		if st != nil {
			t.Status = &templates.TemplateStatus{Rollout: st}
		}
		return t
	}
	instance := func(running int64, moved string) *templatesv1.TemplateInstance {
		ti := &templatesv1.TemplateInstance{}
		if running > 0 {
			ti.Status.TemplateRevision = &templatesv1.AppliedRevision{Number: running}
		}
		if moved != "" {
			ti.Annotations = map[string]string{templatesv1.AnnotationRolloutMoved: moved}
		}
		return ti
	}
	heldInstance := func(running int64) *templatesv1.TemplateInstance {
		ti := instance(running, "")
		ti.Status.Conditions = []metav1.Condition{{Type: templatesv1.TemplateInstanceReady, Status: metav1.ConditionFalse, Reason: templatesv1.ReasonCreatedWithoutCluster}}
		return ti
	}
	progressing := &templates.RolloutStatus{Revision: 2, Phase: templates.RolloutPaused}
	for _, tc := range []struct {
		name string
		t    *templates.Template
		ti   *templatesv1.TemplateInstance
		want bool
	}{
		{"no rollout: everyone moves", at(false, nil), instance(1, ""), false},
		{"the rollout has not started: nobody runs ahead", at(true, nil), instance(1, ""), true},
		{"the rollout of an older revision", at(true, &templates.RolloutStatus{Revision: 1, Phase: templates.RolloutComplete}), instance(1, "2/1/app-uid"), true},
		{"moved", at(true, progressing), instance(1, "2/1/app-uid"), false},
		{"moved in a later wave", at(true, progressing), instance(1, "2/3/app-uid"), false},
		{"not moved, paused", at(true, progressing), instance(1, ""), true},
		{"moved by the rollout of another revision", at(true, progressing), instance(1, "1/1/app-uid"), true},
		{"moved by another Template of the same name", at(true, progressing), instance(1, "2/1/old-uid"), true},
		{"a mark that is no wave", at(true, progressing), instance(1, "2/x/app-uid"), true},
		{"never applied: takes the current", at(true, progressing), instance(0, ""), false},
		{"created without a cluster, consented to: takes the current", at(true, progressing), heldInstance(1), false},
		{"already there", at(true, progressing), instance(2, ""), false},
		{"complete", at(true, &templates.RolloutStatus{Revision: 2, Phase: templates.RolloutComplete}), instance(1, ""), false},
	} {
		if got := Holds(tc.t, tc.ti); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestHeldInstancesAreNotInWaves: an instance created without a cluster, held until someone
// consents, is not counted in a rollout's waves (its wave would wait out the timeout for an
// instance that runs nothing); a Ready or failing instance is.
func TestHeldInstancesAreNotInWaves(t *testing.T) {
	ref := &templatesv1.TemplateReference{Name: "app"}
	with := func(reason string, status metav1.ConditionStatus) *templatesv1.TemplateInstance {
		ti := &templatesv1.TemplateInstance{Spec: templatesv1.TemplateInstanceSpec{TemplateRef: ref}}
		ti.Status.Conditions = []metav1.Condition{{Type: templatesv1.TemplateInstanceReady, Status: status, Reason: reason}}
		return ti
	}
	for _, tc := range []struct {
		ti   *templatesv1.TemplateInstance
		want bool
	}{
		{with(templatesv1.ReasonCreatedWithoutCluster, metav1.ConditionFalse), false},
		{with(templatesv1.ReasonNoCluster, metav1.ConditionFalse), false},
		{with("Ready", metav1.ConditionTrue), true},
		{with("ApplyFailed", metav1.ConditionFalse), true},
	} {
		if got := Eligible(tc.ti, "app"); got != tc.want {
			t.Errorf("Ready %s: Eligible = %v, want %v", tc.ti.Status.Conditions[0].Reason, got, tc.want)
		}
	}
}
