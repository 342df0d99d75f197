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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// An instance created while its server had no cluster (local mode without
// --target-kubeconfig) was stored with the promise that nothing would be created: its
// conditions say NoCluster. A server started later with a cluster does not break that promise
// silently: it applies such an instance only when someone consents, on the instance
// (templates.stencil.dev/apply-created-without-cluster: "true", which makes its writer the
// requester) or for every instance (--apply-instances-created-without-cluster), and it logs
// each one it holds or applies.

// heldMessage tells what to do with an instance held for consent.
const heldMessage = "created while this server had no cluster, when nothing was to be created: not applied without consent. " +
	"Annotate it " + templatesv1.AnnotationApplyCreatedWithoutCluster + "=true to apply it, or start the server with " +
	"--apply-instances-created-without-cluster to apply every such instance"

// holdWithoutConsent says whether the pass stops here: for an instance created without a
// cluster that nobody consented to apply. It writes why in the instance's conditions (once:
// a held instance that has said so is left alone until it changes).
func (c *Controller) holdWithoutConsent(ctx context.Context, ti *templatesv1.TemplateInstance) (bool, error) {
	if !templatesv1.CreatedWithoutCluster(ti) {
		return false, nil
	}
	switch {
	case ti.Annotations[templatesv1.AnnotationApplyCreatedWithoutCluster] == "true":
		klog.Infof("templateinstance %s/%s: created while the server had no cluster; applying it as %s consented (%s)",
			ti.Namespace, ti.Name, ti.Spec.Requester.Username, templatesv1.AnnotationApplyCreatedWithoutCluster)
		return false, nil
	case c.cfg.ApplyCreatedWithoutCluster:
		klog.Infof("templateinstance %s/%s: created while the server had no cluster; applying it (--apply-instances-created-without-cluster)",
			ti.Namespace, ti.Name)
		return false, nil
	}
	ready := meta.FindStatusCondition(ti.Status.Conditions, templatesv1.TemplateInstanceReady)
	if ready.Reason == templatesv1.ReasonCreatedWithoutCluster && ti.Status.ObservedGeneration == ti.Generation {
		return true, nil
	}
	klog.Infof("templateinstance %s/%s: created while the server had no cluster; not applied until someone consents (%s)",
		ti.Namespace, ti.Name, templatesv1.AnnotationApplyCreatedWithoutCluster)
	set(ti, templatesv1.TemplateInstanceReady, metav1.ConditionFalse, templatesv1.ReasonCreatedWithoutCluster, heldMessage)
	set(ti, templatesv1.TemplateInstanceProgressing, metav1.ConditionFalse, templatesv1.ReasonCreatedWithoutCluster, heldMessage)
	ti.Status.ObservedGeneration = ti.Generation
	_, err := c.writeStatus(ctx, ti)
	return true, err
}
