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

// Package client is the client of Stencil's API that the CLI and the catalog use: the typed
// client of the kinds they read and write (Interface: without the generated clientset, which
// links client-go's scheme), discovery and a REST mapper of their own (for the same reason),
// and what client-gen cannot express: processing a Template given in the request through
// processedtemplates, a template's schema, the rollout verbs.
package client

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// ProcessTemplate posts template, the JSON of one of our Templates or of an OpenShift
// template.openshift.io/v1 Template, to processedtemplates in namespace and returns the
// processed objects. Warnings go to the client's warning handler, as in kubectl.
// c is the templates client's RESTClient(), for example
// Interface.RESTClient().
func ProcessTemplate(ctx context.Context, c rest.Interface, namespace string, template []byte, opts metav1.CreateOptions) (*v1alpha1.List, error) {
	result := &v1alpha1.List{}
	err := c.Post().
		Namespace(namespace).
		Resource("processedtemplates").
		VersionedParams(&opts, parameterCodec()).
		SetHeader("Content-Type", "application/json").
		Body(template).
		Do(ctx).
		Into(result)
	return result, err
}
