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
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry"
)

// UninstallGuard refuses to delete a TemplateInstance whose objects the deleting user may not
// delete. Deleting an instance deletes what it manages, and the controller does that as the
// instance's requester; without this check, anyone who may delete TemplateInstances would
// delete, with the requester's rights, objects in other namespaces or cluster-wide that they
// could never delete themselves. The check is made at the request, where the deleting user is
// known, with a SubjectAccessReview for each object; an instance whose deletion policy is
// Orphan deletes nothing and needs no more than the right to delete it.
type UninstallGuard struct {
	// Authorizer answers the SubjectAccessReviews (the hosting cluster's, in a cluster).
	Authorizer authorizer.Authorizer
	// Mapper maps the objects' kinds to resources in the cluster they were applied in; nil
	// when the server has no cluster, whose instances manage nothing.
	Mapper meta.RESTMapper
}

// check refuses the deletion of obj, the stored instance, unless the user of ctx may delete
// every object it manages. resource names the instances in the answer.
func (g *UninstallGuard) check(ctx context.Context, obj runtime.Object, resource schema.GroupResource) error {
	ti, ok := obj.(*templates.TemplateInstance)
	if !ok || g == nil || g.Authorizer == nil || ti.Annotations[v1alpha1.AnnotationDeletionPolicy] == v1alpha1.DeletionPolicyOrphan {
		return nil
	}
	members := ti.Status.Objects
	if s := ti.Status.GeneratedParametersSecret; s != "" {
		members = append([]templates.TemplateInstanceObject{{APIVersion: "v1", Kind: "Secret", Namespace: ti.Namespace, Name: s}}, members...)
	}
	if len(members) == 0 {
		return nil
	}
	u, _ := genericapirequest.UserFrom(ctx)
	if u == nil {
		return apierrors.NewForbidden(resource, ti.Name, fmt.Errorf("deleting it deletes the objects it manages, and the request has no user"))
	}
	var refused []string
	for _, o := range members {
		gvr, ok := g.resourceOf(o)
		if !ok {
			continue // the cluster no longer serves the kind: its objects went with it
		}
		// An object whose lifecycle is retain is left in place: only its labels and managed
		// fields are written.
		verb := "delete"
		if o.Lifecycle == v1alpha1.LifecycleRetain {
			verb = "patch"
		}
		decision, reason, err := g.Authorizer.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: gvr.Group,
			APIVersion: gvr.Version, Resource: gvr.Resource, Namespace: o.Namespace, Name: o.Name, ResourceRequest: true})
		if decision == authorizer.DecisionAllow {
			continue
		}
		if err != nil {
			reason = err.Error()
		}
		if reason == "" {
			reason = "no rule allows it"
		}
		refused = append(refused, fmt.Sprintf("%s %s (%s)", verb, describe(o), reason))
	}
	if len(refused) == 0 {
		return nil
	}
	return apierrors.NewForbidden(resource, ti.Name, fmt.Errorf("deleting it deletes the objects it manages (and releases those whose lifecycle is retain), and %s may not %s; "+
		"delete the instance as someone who may, or set the annotation %s=%s first to keep its objects",
		u.GetName(), strings.Join(refused, ", "), v1alpha1.AnnotationDeletionPolicy, v1alpha1.DeletionPolicyOrphan))
}

// resourceOf maps an object's kind to its resource; a kind the mapper does not know may be
// new since discovery was read, so the mapper is reset once and asked again.
func (g *UninstallGuard) resourceOf(o templates.TemplateInstanceObject) (schema.GroupVersionResource, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil || g.Mapper == nil {
		return schema.GroupVersionResource{}, false
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: o.Kind}
	mapping, err := g.Mapper.RESTMapping(gk, gv.Version)
	if meta.IsNoMatchError(err) {
		meta.MaybeResetRESTMapper(g.Mapper)
		mapping, err = g.Mapper.RESTMapping(gk, gv.Version)
	}
	if err != nil {
		return schema.GroupVersionResource{}, false
	}
	return mapping.Resource, true
}

func describe(o templates.TemplateInstanceObject) string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// GuardedStore is the storage of TemplateInstances, of either group, whose deletes go
// through an UninstallGuard.
type GuardedStore struct {
	registry.Store
	guard *UninstallGuard
}

// NewGuardedStore guards the deletes of store with guard; a nil guard checks nothing (a
// server without a cluster).
func NewGuardedStore(store registry.Store, guard *UninstallGuard) GuardedStore {
	return GuardedStore{Store: store, guard: guard}
}

// Delete deletes one instance after the guard's check of the stored object.
func (s GuardedStore) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return s.Store.Delete(ctx, name, s.guarded(deleteValidation), options)
}

// DeleteCollection deletes the instances listed, each after the guard's check.
func (s GuardedStore) DeleteCollection(ctx context.Context, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions,
	listOptions *metainternalversion.ListOptions) (runtime.Object, error) {
	return s.Store.DeleteCollection(ctx, s.guarded(deleteValidation), options, listOptions)
}

func (s GuardedStore) guarded(next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj); err != nil {
				return err
			}
		}
		return s.guard.check(ctx, obj, s.Store.DefaultQualifiedResource)
	}
}
