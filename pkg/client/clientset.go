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

package client

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// Interface is the part of Stencil's API the CLI and the catalog use. It is not the
// generated clientset because that one links client-go's discovery, and through it
// client-go's kubernetes/scheme, which registers every Kubernetes API type when a program
// starts: a CLI started once per render (a GitOps plugin) paid for that on every start
// (docs/performance.md). Each method set below is a subset of the generated typed client's,
// so a test can give a generated fake clientset's typed clients in its place.
type Interface interface {
	// RESTClient is the client of the templates.stencil.dev/v1alpha1 group, for the requests
	// no typed method expresses (processedtemplates, adoptions, a template's schema).
	RESTClient() rest.Interface
	Templates(namespace string) TemplateInterface
	TemplateInstances(namespace string) TemplateInstanceInterface
	TemplateRevisions(namespace string) TemplateRevisionInterface
}

// TemplateInterface reads and writes Templates and processes them by name.
type TemplateInterface interface {
	Create(ctx context.Context, t *templatesv1.Template, opts metav1.CreateOptions) (*templatesv1.Template, error)
	Update(ctx context.Context, t *templatesv1.Template, opts metav1.UpdateOptions) (*templatesv1.Template, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*templatesv1.Template, error)
	List(ctx context.Context, opts metav1.ListOptions) (*templatesv1.TemplateList, error)
	Process(ctx context.Context, name string, params *templatesv1.TemplateParameters, opts metav1.CreateOptions) (*templatesv1.List, error)
	Preview(ctx context.Context, name string, preview *templatesv1.TemplatePreview, opts metav1.CreateOptions) (*templatesv1.TemplatePreview, error)
}

// TemplateInstanceInterface reads and writes TemplateInstances.
type TemplateInstanceInterface interface {
	Create(ctx context.Context, ti *templatesv1.TemplateInstance, opts metav1.CreateOptions) (*templatesv1.TemplateInstance, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*templatesv1.TemplateInstance, error)
	List(ctx context.Context, opts metav1.ListOptions) (*templatesv1.TemplateInstanceList, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*templatesv1.TemplateInstance, error)
}

// TemplateRevisionInterface reads a Template's revisions.
type TemplateRevisionInterface interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*templatesv1.TemplateRevision, error)
	List(ctx context.Context, opts metav1.ListOptions) (*templatesv1.TemplateRevisionList, error)
}

// Clientset is Interface over the REST API, with Stencil's kinds' scheme (scheme.go: built on
// the first client). Its typed clients are not client-go's gentype, which
// links client-go's fakes (client-go/testing) and through them the managed-fields machinery.
type Clientset struct {
	rest rest.Interface
}

var _ Interface = &Clientset{}

// NewForConfig is the client of Stencil's API at the server and with the credentials of c.
func NewForConfig(c *rest.Config) (*Clientset, error) {
	config := *c
	gv := templatesv1.SchemeGroupVersion
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	config.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(schemeOnce().scheme, schemeOnce().codecs).WithoutConversion()
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	client, err := rest.RESTClientFor(&config)
	if err != nil {
		return nil, err
	}
	return &Clientset{rest: client}, nil
}

// RESTClient is the client of the templates.stencil.dev/v1alpha1 group.
func (c *Clientset) RESTClient() rest.Interface {
	return c.rest
}

// Templates is the Templates of namespace.
func (c *Clientset) Templates(namespace string) TemplateInterface {
	return templates{newTyped(c.rest, "templates", namespace,
		func() *templatesv1.Template { return &templatesv1.Template{} },
		func() *templatesv1.TemplateList { return &templatesv1.TemplateList{} })}
}

// TemplateInstances is the TemplateInstances of namespace.
func (c *Clientset) TemplateInstances(namespace string) TemplateInstanceInterface {
	return newTyped(c.rest, "templateinstances", namespace,
		func() *templatesv1.TemplateInstance { return &templatesv1.TemplateInstance{} },
		func() *templatesv1.TemplateInstanceList { return &templatesv1.TemplateInstanceList{} })
}

// TemplateRevisions is the TemplateRevisions of namespace.
func (c *Clientset) TemplateRevisions(namespace string) TemplateRevisionInterface {
	return newTyped(c.rest, "templaterevisions", namespace,
		func() *templatesv1.TemplateRevision { return &templatesv1.TemplateRevision{} },
		func() *templatesv1.TemplateRevisionList { return &templatesv1.TemplateRevisionList{} })
}

// object is a kind's Go type.
type object interface {
	runtime.Object
	GetName() string
}

// typed is the client of one resource of a namespace: the requests client-gen's typed
// clients make, with objects of type T and lists of type L.
type typed[T object, L runtime.Object] struct {
	rest      rest.Interface
	resource  string
	namespace string
	newObject func() T
	newList   func() L
}

func newTyped[T object, L runtime.Object](c rest.Interface, resource, namespace string, newObject func() T, newList func() L) typed[T, L] {
	return typed[T, L]{rest: c, resource: resource, namespace: namespace, newObject: newObject, newList: newList}
}

func (c typed[T, L]) Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error) {
	result := c.newObject()
	err := c.rest.Get().Namespace(c.namespace).Resource(c.resource).Name(name).
		VersionedParams(&opts, parameterCodec()).Do(ctx).Into(result)
	return result, err
}

func (c typed[T, L]) List(ctx context.Context, opts metav1.ListOptions) (L, error) {
	result := c.newList()
	req := c.rest.Get().Namespace(c.namespace).Resource(c.resource).VersionedParams(&opts, parameterCodec())
	if opts.TimeoutSeconds != nil {
		req = req.Timeout(time.Duration(*opts.TimeoutSeconds) * time.Second)
	}
	err := req.Do(ctx).Into(result)
	return result, err
}

func (c typed[T, L]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	result := c.newObject()
	err := c.rest.Post().Namespace(c.namespace).Resource(c.resource).
		VersionedParams(&opts, parameterCodec()).Body(obj).Do(ctx).Into(result)
	return result, err
}

func (c typed[T, L]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	result := c.newObject()
	err := c.rest.Put().Namespace(c.namespace).Resource(c.resource).Name(obj.GetName()).
		VersionedParams(&opts, parameterCodec()).Body(obj).Do(ctx).Into(result)
	return result, err
}

func (c typed[T, L]) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error) {
	result := c.newObject()
	err := c.rest.Patch(pt).Namespace(c.namespace).Resource(c.resource).Name(name).SubResource(subresources...).
		VersionedParams(&opts, parameterCodec()).Body(data).Do(ctx).Into(result)
	return result, err
}

// templates adds the processed and preview subresources to the typed client of Templates.
type templates struct {
	typed[*templatesv1.Template, *templatesv1.TemplateList]
}

// Process posts params to the Template's processed subresource and returns the objects.
func (c templates) Process(ctx context.Context, name string, params *templatesv1.TemplateParameters, opts metav1.CreateOptions) (*templatesv1.List, error) {
	result := &templatesv1.List{}
	err := c.rest.Post().Namespace(c.namespace).Resource("templates").Name(name).SubResource("processed").
		VersionedParams(&opts, parameterCodec()).Body(params).Do(ctx).Into(result)
	return result, err
}

// Preview posts preview to the Template's preview subresource and returns the answer.
func (c templates) Preview(ctx context.Context, name string, preview *templatesv1.TemplatePreview, opts metav1.CreateOptions) (*templatesv1.TemplatePreview, error) {
	result := &templatesv1.TemplatePreview{}
	err := c.rest.Post().Namespace(c.namespace).Resource("templates").Name(name).SubResource("preview").
		VersionedParams(&opts, parameterCodec()).Body(preview).Do(ctx).Into(result)
	return result, err
}
