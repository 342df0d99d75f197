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

package integration

import (
	"strings"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

func templatesParam(name, typ, value string) templatesv1.Parameter {
	return templatesv1.Parameter{Name: name, Type: templatesv1.ParameterType(typ), Value: value}
}

// splitDocs splits a YAML stream at its --- lines.
func splitDocs(stream string) []string {
	var docs []string
	for _, doc := range strings.Split(stream, "\n---\n") {
		if strings.TrimSpace(doc) != "" {
			docs = append(docs, doc)
		}
	}
	return docs
}
