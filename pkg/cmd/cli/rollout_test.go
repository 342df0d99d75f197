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

package cli

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// TestPrintRollout: the status names the phase, each failed instance and why, and each
// instance's policy and revision.
func TestPrintRollout(t *testing.T) {
	template := &templatesv1.Template{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns"},
		Revision: &templatesv1.RevisionStamp{Number: 2, Hash: "sha256:two"}, Rollout: &templatesv1.Rollout{},
		Status: &templatesv1.TemplateStatus{Rollout: &templatesv1.RolloutStatus{Revision: 2, FromRevision: 1, Phase: templatesv1.RolloutPaused, Reason: "WaveTimeout",
			Wave: 2, Waves: 3, Failed: []templatesv1.RolloutFailure{{Name: "b", Reason: "NotReady", Message: "not ready yet: Job ns/b-wait"}}}}}
	ti := templatesv1.TemplateInstance{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Spec: templatesv1.TemplateInstanceSpec{
		TemplateRef: &templatesv1.TemplateReference{Name: "app"}, UpdatePolicy: templatesv1.UpdatePolicyManual},
		Status: templatesv1.TemplateInstanceStatus{TemplateRevision: &templatesv1.AppliedRevision{Number: 1}}}
	var out bytes.Buffer
	printRollout(&out, template, []templatesv1.TemplateInstance{ti})
	for _, want := range []string{"template app: revision 2 from 1: Paused (WaveTimeout)", "b: NotReady: not ready yet: Job ns/b-wait",
		"stencil rollout resume app", "m          Manual   1          Unknown"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
