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

package publish

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// NewClient returns the Client over a dynamic client with the requester's identity.
func NewClient(d dynamic.Interface) Client { return dynamicClient{d} }

type dynamicClient struct{ d dynamic.Interface }

func (c dynamicClient) Get(ctx context.Context, r schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	return c.d.Resource(r).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

// Apply applies under the controller's field manager, forcing: the ConfigMap and the
// ExternalArtifact are the instance's, and their fields are its to set.
func (c dynamicClient) Apply(ctx context.Context, r schema.GroupVersionResource, namespace, name string, obj *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: inventory.FieldManager, Force: true}
	if subresource == "" {
		return c.d.Resource(r).Namespace(namespace).Apply(ctx, name, obj, opts)
	}
	return c.d.Resource(r).Namespace(namespace).Apply(ctx, name, obj, opts, subresource)
}

func (c dynamicClient) List(ctx context.Context, r schema.GroupVersionResource, namespace string) (*unstructured.UnstructuredList, error) {
	return c.d.Resource(r).Namespace(namespace).List(ctx, metav1.ListOptions{})
}
