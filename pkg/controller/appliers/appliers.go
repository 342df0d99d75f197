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

// Package appliers acts in the target cluster as each TemplateInstance requester: client-go
// clients that impersonate the requester (or, in local mode with --target-kubeconfig, act as
// the kubeconfig's own identity), behind the instance.Applier the pass library, the
// controller and the preview read, dry-run and write through.
package appliers

import (
	"context"
	"fmt"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/publish"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// Client is an instance.Applier over a dynamic client, for the objects, Secrets and
// ConfigMaps, and a typed one, for SelfSubjectAccessReviews, both with one identity.
type Client struct {
	dynamic dynamic.Interface
	kube    kubernetes.Interface
}

func (a *Client) resource(o instance.Object) dynamic.ResourceInterface {
	if o.Namespace == "" {
		return a.dynamic.Resource(o.Resource)
	}
	return a.dynamic.Resource(o.Resource).Namespace(o.Namespace)
}

// Get reads the object with the dynamic client.
func (a *Client) Get(ctx context.Context, o instance.Object) (*unstructured.Unstructured, error) {
	return a.resource(o).Get(ctx, o.Name, metav1.GetOptions{})
}

// Apply applies obj with the dynamic client, never forcing.
func (a *Client) Apply(ctx context.Context, o instance.Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: inventory.FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(o).Apply(ctx, o.Name, obj, opts)
}

// ApplyForced applies obj with the dynamic client, forcing conflicts.
func (a *Client) ApplyForced(ctx context.Context, o instance.Object, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(o).Apply(ctx, o.Name, obj, opts)
}

// Patch patches the object under the controller's field manager.
func (a *Client) Patch(ctx context.Context, o instance.Object, patchType types.PatchType, data []byte, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.PatchOptions{FieldManager: inventory.FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(o).Patch(ctx, o.Name, patchType, data, opts)
}

// listPage is how many objects one request of List reads: a page of Secrets of 1.5 MiB each
// holds at most about 75 MiB decoded, whatever the namespace holds.
const listPage = 50

// List visits the objects with the dynamic client, a page at a time; no page outlives its
// visit.
func (a *Client) List(ctx context.Context, resource schema.GroupVersionResource, namespace, selector string, visit func(*unstructured.Unstructured) error) error {
	r := dynamic.ResourceInterface(a.dynamic.Resource(resource))
	if namespace != "" {
		r = a.dynamic.Resource(resource).Namespace(namespace)
	}
	opts := metav1.ListOptions{LabelSelector: selector, Limit: listPage}
	for {
		list, err := r.List(ctx, opts)
		if err != nil {
			return err
		}
		for i := range list.Items {
			if err := visit(&list.Items[i]); err != nil {
				return err
			}
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// Delete deletes the object with a uid precondition and background propagation.
func (a *Client) Delete(ctx context.Context, o instance.Object, uid types.UID) error {
	background := metav1.DeletePropagationBackground
	return a.resource(o).Delete(ctx, o.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &background})
}

// SourceData reads the Secret or ConfigMap through the dynamic client, as the objects are
// read: one client for everything the instance reads and writes.
func (a *Client) SourceData(ctx context.Context, namespace string, src inventory.Source) (map[string][]byte, error) {
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
func (a *Client) SecretsData(ctx context.Context, namespace, selector string) (map[string]map[string][]byte, error) {
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
func (a *Client) MayI(ctx context.Context, attrs authorizer.Attributes) (bool, string, error) {
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

// NewClient is the Client of a dynamic and a typed client of one identity.
func NewClient(dyn dynamic.Interface, kube kubernetes.Interface) *Client {
	return &Client{dynamic: dyn, kube: kube}
}

// Dynamic is the Client's dynamic client.
func (a *Client) Dynamic() dynamic.Interface { return a.dynamic }

// Impersonating is the Appliers of a cluster: it keeps the clients of recent requesters, each
// impersonating its requester, so that their connections are reused; with self set, the
// target's own identity acts for every requester.
type Impersonating struct {
	target *restclient.Config
	self   instance.Applier

	mu    sync.Mutex
	users map[string]instance.Applier
}

// maxCachedUsers bounds the requesters whose clients are kept; the cache starts over past it.
const maxCachedUsers = 512

// New returns the Appliers of the cluster of target: each requester impersonated, or, with
// actAsSelf, target's own identity acting for every requester.
func New(target *restclient.Config, actAsSelf bool) (*Impersonating, error) {
	c := &Impersonating{target: target, users: map[string]instance.Applier{}}
	if actAsSelf {
		var err error
		if c.self, err = applierFor(target); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func applierFor(config *restclient.Config) (instance.Applier, error) {
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return NewClient(dyn, kube), nil
}

// For returns the Applier that acts as r.
func (c *Impersonating) For(r *templatesv1.TemplateInstanceRequester) (instance.Applier, error) {
	if c.self != nil {
		return c.self, nil
	}
	key := instance.IdentityKey(instance.RequesterInfo(r))
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
		c.users = map[string]instance.Applier{}
	}
	c.users[key] = u
	return u, nil
}

// PublishClient is the client that publishes as r: the dynamic client of r's Applier.
func (c *Impersonating) PublishClient(r *templatesv1.TemplateInstanceRequester) (publish.Client, error) {
	a, err := c.For(r)
	if err != nil {
		return nil, err
	}
	return publish.NewClient(a.(*Client).dynamic), nil
}
