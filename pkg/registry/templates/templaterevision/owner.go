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

package templaterevision

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// ownerReference makes t the controller of its revisions, as a workload is of its
// ControllerRevisions: the garbage collector deletes them once t is gone (in the foreground
// too: they block t's deletion until they are deleted).
func ownerReference(t *templates.Template) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Template", Name: t.Name, UID: t.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}

// revisionLabels are the labels of a revision of t with content hash: its Template's name (when
// it fits a label), uid and the content's short hash.
func revisionLabels(t *templates.Template, hash string) map[string]string {
	out := map[string]string{v1alpha1.LabelTemplateUID: string(t.UID), v1alpha1.LabelRevisionHash: ShortHash(hash)}
	if value, ok := v1alpha1.TemplateLabel(t.Name); ok {
		out[v1alpha1.LabelTemplate] = value
	}
	return out
}

// Owned says rev is a revision of the Template whose uid is uid (v1alpha1.RevisionOwnedBy).
func Owned(rev *templates.TemplateRevision, uid types.UID) bool {
	return v1alpha1.RevisionOwnedBy(rev, uid)
}

// TemplateDeleted deletes the revisions of a Template that was deleted, which the Templates'
// storage calls once the Template is gone (genericregistry.Store.AfterDelete), however it went:
// a delete, a deletecollection, or the update that removed its last finalizer. A server
// whose API a cluster's garbage collector serves has them deleted by it too (the owner
// reference); a server in local mode has none, and this is what deletes them there. Those
// the garbage collector orphaned (kubectl delete --cascade=orphan) have no owner any more and
// are kept.
func (w *Writer) TemplateDeleted(obj runtime.Object, options *metav1.DeleteOptions) {
	t, ok := obj.(*templates.Template)
	if !ok || (options != nil && len(options.DryRun) > 0) {
		return
	}
	ctx, cancel := context.WithTimeout(genericapirequest.WithNamespace(context.Background(), t.Namespace), writeTimeout)
	defer cancel()
	revisions, err := w.List(ctx, t)
	if err != nil {
		klog.ErrorS(err, "Listing the revisions of a deleted Template", "template", klog.KObj(t))
		return
	}
	for _, rev := range revisions {
		if err := w.delete(ctx, rev); err != nil {
			klog.ErrorS(err, "Deleting a revision of a deleted Template", "revision", klog.KObj(rev))
		}
	}
}
