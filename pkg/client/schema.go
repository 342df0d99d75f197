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

	"k8s.io/client-go/rest"
)

// TemplateSchema gets templates/{name}/schema in namespace: the stored Template's parameters
// as a JSON Schema document, returned as the server wrote it. c is the templates client's
// RESTClient().
func TemplateSchema(ctx context.Context, c rest.Interface, namespace, name string) ([]byte, error) {
	return c.Get().
		Namespace(namespace).
		Resource("templates").
		Name(name).
		SubResource("schema").
		SetHeader("Accept", "application/json").
		Do(ctx).
		Raw()
}
