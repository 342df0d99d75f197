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

package apiserver

import (
	"strings"

	restful "github.com/emicklei/go-restful/v3"

	"k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	openapicommon "k8s.io/kube-openapi/pkg/common"

	stencilopenapi "stencil.dev/stencil/pkg/generated/openapi"
)

// OpenAPIV3Config is the configuration the server builds its /openapi/v3 with: the generated
// definitions, the scheme's names, the operation IDs below. hack/template-schema builds the
// Template's schema with it too, so that the file is what the server serves.
func OpenAPIV3Config() *openapicommon.OpenAPIV3Config {
	c := genericapiserver.DefaultOpenAPIV3Config(stencilopenapi.GetOpenAPIDefinitions, openapi.NewDefinitionNamer(Scheme))
	c.Info.Title = "Stencil"
	c.Info.Version = "v1alpha1"
	c.GetOperationIDAndTags = OperationIDAndTags
	return c
}

// OperationIDAndTags names OpenAPI operations as the generic server does, except for
// OpenShift's processedtemplates: its kind is Template, as in OpenShift, so by default its
// create would be called createNamespacedTemplate like the one of templates, and the OpenAPI
// builder refuses duplicate operation IDs. Ours has a kind of its own already.
func OperationIDAndTags(r *restful.Route) (string, []string, error) {
	id, tags, err := openapi.GetOperationIDAndTags(r)
	if err == nil && strings.HasSuffix(r.Path, "/processedtemplates") && !strings.HasSuffix(id, "ProcessedTemplate") {
		id = strings.TrimSuffix(id, "Template") + "ProcessedTemplate"
	}
	return id, tags, err
}
