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

package validation

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"stencil.dev/stencil/pkg/apis/templates"
)

// TestValidateRollout: every problem of a rollout at once, each at its field path, on create
// and on update.
func TestValidateRollout(t *testing.T) {
	good := validTemplate()
	good.Rollout = &templates.Rollout{Waves: []intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("10%"), intstr.FromInt32(5), intstr.FromString("100%")},
		Timeout: &metav1.Duration{Duration: time.Minute}}
	checkCauses(t, ValidateTemplate(good), nil)

	bad := validTemplate()
	bad.Rollout = &templates.Rollout{
		Waves: []intstr.IntOrString{intstr.FromInt32(0), intstr.FromInt32(3), intstr.FromInt32(3), intstr.FromString("50%"),
			intstr.FromString("10%"), intstr.FromString("150%"), intstr.FromString("ten")},
		Timeout: &metav1.Duration{Duration: -time.Second},
	}
	want := []string{"rollout.waves[0]: FieldValueInvalid", "rollout.waves[2]: FieldValueInvalid", "rollout.waves[4]: FieldValueInvalid",
		"rollout.waves[5]: FieldValueInvalid", "rollout.waves[6]: FieldValueInvalid", "rollout.timeout: FieldValueInvalid"}
	checkCauses(t, ValidateTemplate(bad), want)
	old := validTemplate()
	old.ResourceVersion = "1"
	bad.ResourceVersion = "1"
	checkCauses(t, ValidateTemplateUpdate(bad, old), want)

	many := validTemplate()
	many.Rollout = &templates.Rollout{Timeout: &metav1.Duration{Duration: 8 * 24 * time.Hour}}
	for i := 1; i <= MaxRolloutWaves+1; i++ {
		many.Rollout.Waves = append(many.Rollout.Waves, intstr.FromInt(i))
	}
	checkCauses(t, ValidateTemplate(many), []string{"rollout.waves: FieldValueTooMany", "rollout.timeout: FieldValueInvalid"})
}
