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

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CreatedWithoutCluster says the instance was created on a server without a cluster and never
// applied since: its Ready condition is still the one that server stored it with
// (ReasonNoCluster), or the one a server with a cluster wrote while it waits for consent
// (ReasonCreatedWithoutCluster). Such an instance runs nothing: the instance controller holds
// it, and a rollout neither waits for it nor holds it back.
func CreatedWithoutCluster(ti *TemplateInstance) bool {
	c := meta.FindStatusCondition(ti.Status.Conditions, TemplateInstanceReady)
	return c != nil && c.Status == metav1.ConditionFalse && (c.Reason == ReasonNoCluster || c.Reason == ReasonCreatedWithoutCluster)
}
