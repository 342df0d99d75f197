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
	"sort"
	"strings"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// Object names one object of the target cluster: its resource, namespace and name.
type Object struct {
	Resource  schema.GroupVersionResource
	Namespace string
	Name      string
}

// Applier acts in the target cluster as one requester: every read and write of an instance's
// objects, and of the Secrets of its values, goes through it, so that the cluster itself
// enforces the requester's RBAC and admission.
type Applier interface {
	// Get reads an object.
	Get(ctx context.Context, o Object) (*unstructured.Unstructured, error)
	// Apply applies obj with server-side apply under the controller's field manager, never
	// forcing a conflict; with dryRun the cluster only checks it (admission and validation).
	Apply(ctx context.Context, o Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error)
	// ApplyForced applies obj as Apply does but forces conflicts: adoption takes the fields
	// of another tool's managers over.
	ApplyForced(ctx context.Context, o Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error)
	// Patch patches the object: adoption moves field ownership and removes another tool's
	// ownership metadata, each patch conditional on the object's resourceVersion.
	Patch(ctx context.Context, o Object, patchType types.PatchType, data []byte, dryRun bool) (*unstructured.Unstructured, error)
	// List lists the objects of a resource in a namespace that selector selects.
	List(ctx context.Context, resource schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error)
	// Delete deletes the object if its uid is uid, letting its dependents go in the background.
	Delete(ctx context.Context, o Object, uid types.UID) error
	// SourceData reads the data of a Secret or ConfigMap (its data and binaryData).
	SourceData(ctx context.Context, namespace string, src inventory.Source) (map[string][]byte, error)
	// SecretsData lists the Secrets of a namespace that selector selects: their data by name.
	SecretsData(ctx context.Context, namespace, selector string) (map[string]map[string][]byte, error)
	// MayI asks the target cluster whether the applier's own identity may do what attrs
	// describe (a SelfSubjectAccessReview); it answers the reason of a refusal.
	MayI(ctx context.Context, attrs authorizer.Attributes) (bool, string, error)
}

// Appliers hands out the Applier that acts as a requester.
type Appliers interface {
	// For returns the Applier of r.
	For(r *templatesv1.TemplateInstanceRequester) (Applier, error)
}

// clientApplier is an Applier over a dynamic client, for the objects and Secrets, and a typed
// one, for SelfSubjectAccessReviews, both with one identity.
type clientApplier struct {
	dynamic dynamic.Interface
	kube    kubernetes.Interface
}

func (a *clientApplier) resource(o Object) dynamic.ResourceInterface {
	if o.Namespace == "" {
		return a.dynamic.Resource(o.Resource)
	}
	return a.dynamic.Resource(o.Resource).Namespace(o.Namespace)
}

// Get reads the object with the dynamic client.
func (a *clientApplier) Get(ctx context.Context, o Object) (*unstructured.Unstructured, error) {
	return a.resource(o).Get(ctx, o.Name, metav1.GetOptions{})
}

// Apply applies obj with the dynamic client, never forcing.
func (a *clientApplier) Apply(ctx context.Context, o Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: inventory.FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(o).Apply(ctx, o.Name, obj, opts)
}

// ApplyForced applies obj with the dynamic client, forcing conflicts.
func (a *clientApplier) ApplyForced(ctx context.Context, o Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(o).Apply(ctx, o.Name, obj, opts)
}

// Patch patches the object under the controller's field manager.
func (a *clientApplier) Patch(ctx context.Context, o Object, patchType types.PatchType, data []byte, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.PatchOptions{FieldManager: inventory.FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(o).Patch(ctx, o.Name, patchType, data, opts)
}

// List lists the objects with the dynamic client.
func (a *clientApplier) List(ctx context.Context, resource schema.GroupVersionResource, namespace, selector string) ([]unstructured.Unstructured, error) {
	r := dynamic.ResourceInterface(a.dynamic.Resource(resource))
	if namespace != "" {
		r = a.dynamic.Resource(resource).Namespace(namespace)
	}
	list, err := r.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// Delete deletes the object with a uid precondition and background propagation.
func (a *clientApplier) Delete(ctx context.Context, o Object, uid types.UID) error {
	background := metav1.DeletePropagationBackground
	return a.resource(o).Delete(ctx, o.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &background})
}

// SourceData reads the Secret or ConfigMap through the dynamic client, as the objects are
// read: one client for everything the instance reads and writes.
func (a *clientApplier) SourceData(ctx context.Context, namespace string, src inventory.Source) (map[string][]byte, error) {
	if src.Kind == inventory.ConfigMapKind {
		u, err := a.dynamic.Resource(configMaps).Namespace(namespace).Get(ctx, src.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		var cm corev1.ConfigMap
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cm); err != nil {
			return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, src.Name, err)
		}
		return inventory.ConfigMapData(cm.Data, cm.BinaryData), nil
	}
	u, err := a.dynamic.Resource(secrets).Namespace(namespace).Get(ctx, src.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var secret corev1.Secret
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &secret); err != nil {
		return nil, fmt.Errorf("reading Secret %s/%s: %w", namespace, src.Name, err)
	}
	return secret.Data, nil
}

// SecretsData lists the Secrets through the dynamic client.
func (a *clientApplier) SecretsData(ctx context.Context, namespace, selector string) (map[string]map[string][]byte, error) {
	list, err := a.dynamic.Resource(secrets).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string][]byte, len(list.Items))
	for _, u := range list.Items {
		var secret corev1.Secret
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &secret); err != nil {
			return nil, fmt.Errorf("reading Secret %s/%s: %w", namespace, u.GetName(), err)
		}
		out[secret.Name] = secret.Data
	}
	return out, nil
}

var (
	secrets    = corev1.SchemeGroupVersion.WithResource("secrets")
	configMaps = corev1.SchemeGroupVersion.WithResource("configmaps")
)

// MayI asks a SelfSubjectAccessReview with the typed client.
func (a *clientApplier) MayI(ctx context.Context, attrs authorizer.Attributes) (bool, string, error) {
	review, err := a.kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: attrs.GetNamespace(), Verb: attrs.GetVerb(), Group: attrs.GetAPIGroup(), Version: attrs.GetAPIVersion(),
			Resource: attrs.GetResource(), Subresource: attrs.GetSubresource(), Name: attrs.GetName()}},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, "", err
	}
	return review.Status.Allowed, review.Status.Reason, nil
}

// impersonating is the Appliers of a cluster: it keeps the clients of recent requesters, each
// impersonating its requester, so that their connections are reused; with self set, the
// target's own identity acts for every requester.
type impersonating struct {
	target *restclient.Config
	self   Applier

	mu    sync.Mutex
	users map[string]Applier
}

// maxCachedUsers bounds the requesters whose clients are kept; the cache starts over past it.
const maxCachedUsers = 512

// NewAppliers returns the Appliers of the cluster of target: each requester impersonated,
// or, with actAsSelf, target's own identity acting for every requester.
func NewAppliers(target *restclient.Config, actAsSelf bool) (Appliers, error) {
	return newImpersonating(target, actAsSelf)
}

func newImpersonating(target *restclient.Config, actAsSelf bool) (*impersonating, error) {
	c := &impersonating{target: target, users: map[string]Applier{}}
	if actAsSelf {
		var err error
		if c.self, err = applierFor(target); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func applierFor(config *restclient.Config) (Applier, error) {
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return &clientApplier{dynamic: dyn, kube: kube}, nil
}

// For returns the Applier that acts as r.
func (c *impersonating) For(r *templatesv1.TemplateInstanceRequester) (Applier, error) {
	if c.self != nil {
		return c.self, nil
	}
	key := identityKey(requesterInfo(r))
	c.mu.Lock()
	defer c.mu.Unlock()
	if u, ok := c.users[key]; ok {
		return u, nil
	}
	config := restclient.CopyConfig(c.target)
	config.Impersonate = restclient.ImpersonationConfig{UserName: r.Username, UID: r.UID, Groups: r.Groups, Extra: r.Extra}
	u, err := applierFor(config)
	if err != nil {
		return nil, err
	}
	if len(c.users) >= maxCachedUsers {
		c.users = map[string]Applier{}
	}
	c.users[key] = u
	return u, nil
}

// publishClient is the client that publishes as r: the dynamic client of r's Applier.
func (c *impersonating) publishClient(r *templatesv1.TemplateInstanceRequester) (publish.Client, error) {
	a, err := c.For(r)
	if err != nil {
		return nil, err
	}
	return publish.NewClient(a.(*clientApplier).dynamic), nil
}

// identityKey tells identities apart: two users with one key are the same to an authorizer.
func identityKey(u user.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q", u.GetName(), u.GetUID(), u.GetGroups())
	extra := u.GetExtra()
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %q=%q", k, extra[k])
	}
	return b.String()
}
