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
	"context"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// deletionPoll is how soon a deleted instance looks again for objects still going.
const deletionPoll = time.Second

// uninstall deletes the instance's objects in reverse apply order, then its generated-values
// Secret, explicitly (a cluster may have no garbage collector), waits until they are gone and
// only then lets the instance go. With the Orphan policy it lets the instance go at once.
func (c *Controller) uninstall(ctx context.Context, ti *templatesv1.TemplateInstance) (time.Duration, error) {
	if !slices.Contains(ti.Finalizers, templatesv1.TemplateInstanceFinalizer) {
		return 0, nil
	}
	if ti.Annotations[templatesv1.AnnotationDeletionPolicy] != templatesv1.DeletionPolicyOrphan && ti.Spec.Requester != nil {
		a, err := c.cfg.Appliers.For(ti.Spec.Requester)
		if err != nil {
			return 0, err
		}
		members := ti.Status.Objects
		if s := ti.Status.GeneratedParametersSecret; s != "" {
			members = append([]templatesv1.TemplateInstanceObject{{APIVersion: "v1", Kind: "Secret", Namespace: ti.Namespace, Name: s}}, members...)
		}
		if ti.Spec.Published() {
			// Its ExternalArtifact and the artifact's storage; what Flux applied stays Flux's.
			members = append(publishedMembers(ti), members...)
		}
		left, err := c.prune(ctx, ti, a, members, nil)
		if err != nil {
			return 0, c.failed(ctx, ti, err)
		}
		if len(left) > 0 {
			setConditions(ti, metav1.ConditionFalse, "Deleting", "waiting for objects to go: "+describeObjects(left), progressing(metav1.ConditionTrue))
			if _, err := c.writeStatus(ctx, ti); err != nil {
				return 0, err
			}
			return deletionPoll, nil
		}
	}
	ti.Finalizers = slices.DeleteFunc(ti.Finalizers, func(f string) bool { return f == templatesv1.TemplateInstanceFinalizer })
	_, err := c.cfg.Instances.TemplatesV1alpha1().TemplateInstances(ti.Namespace).Update(ctx, ti, metav1.UpdateOptions{})
	return 0, err
}
