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
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/generated/clientset/versioned/fake"
)

// fakeClient is Interface over client-go's fake of the generated clientset: the typed
// clients the generated one returns have every method Interface's have, so this test-only
// adapter keeps the fake's object tracker for the unit tests of what this package builds on.
type fakeClient struct{ *fake.Clientset }

func (c fakeClient) RESTClient() rest.Interface { return c.TemplatesV1alpha1().RESTClient() }

func (c fakeClient) Templates(namespace string) TemplateInterface {
	return c.TemplatesV1alpha1().Templates(namespace)
}

func (c fakeClient) TemplateInstances(namespace string) TemplateInstanceInterface {
	return c.TemplatesV1alpha1().TemplateInstances(namespace)
}

func (c fakeClient) TemplateRevisions(namespace string) TemplateRevisionInterface {
	return c.TemplatesV1alpha1().TemplateRevisions(namespace)
}
