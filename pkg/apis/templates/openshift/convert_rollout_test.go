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

package openshift

import (
	"strings"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestRolloutThroughOpenShiftsForm: a Template's rollout and its status, which OpenShift's
// Template has no field for, are carried in the stencil-fields annotation and come back.
func TestRolloutThroughOpenShiftsForm(t *testing.T) {
	now := metav1.NewTime(time.Unix(1700000000, 0).UTC())
	in := &templates.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"},
		OpenShift:  true,
		Rollout: &templates.Rollout{Waves: []intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("50%")}, Gate: "instances.all(i, i.ready)",
			Timeout: &metav1.Duration{Duration: time.Minute}, Paused: true},
		Status: &templates.TemplateStatus{Rollout: &templates.RolloutStatus{Revision: 2, FromRevision: 1, Phase: templates.RolloutPaused,
			Reason: "WaveTimeout", Wave: 2, Waves: 3, WaveStartTime: &now, Moved: []string{"a", "b"},
			Failed: []templates.RolloutFailure{{Name: "b", Reason: "NotReady", Message: "never"}}, Pauses: 1}},
	}
	var out Template
	if err := FromInternal(in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Annotations[StencilFieldsAnnotation], `"rollout"`) {
		t.Fatalf("the annotation does not carry the rollout: %s", out.Annotations[StencilFieldsAnnotation])
	}
	var back templates.Template
	if err := ToInternal(&out, &back); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(back.Rollout, in.Rollout) || !apiequality.Semantic.DeepEqual(back.Status, in.Status) {
		t.Errorf("back: rollout %+v status %+v", back.Rollout, back.Status.Rollout)
	}
}
