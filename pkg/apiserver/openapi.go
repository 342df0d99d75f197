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
)

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
