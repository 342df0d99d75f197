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
	"fmt"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
)

// setRevisionReconciled reports, after a pass that applied, which revision the instance runs
// and whether the Template has a newer one it does not follow.
func setRevisionReconciled(ti *templatesv1.TemplateInstance, current int64) {
	r := ti.Status.TemplateRevision
	if r == nil {
		apimeta.RemoveStatusCondition(&ti.Status.Conditions, templatesv1.TemplateInstanceRevisionReconciled)
		return
	}
	message := fmt.Sprintf("runs revision %d of Template %s", r.Number, ti.Spec.TemplateRef.Name)
	if current != r.Number {
		why := "Manual"
		switch {
		case ti.Spec.TemplateRef.Revision > 0:
			why = "pinned"
		case instance.Policy(ti) == templatesv1.UpdatePolicyAutomatic:
			why = "not moved yet by the Template's rollout"
		}
		message += fmt.Sprintf(" (%s); the Template is at revision %d", why, current)
	}
	set(ti, templatesv1.TemplateInstanceRevisionReconciled, metav1.ConditionTrue, "Reconciled", message)
}
