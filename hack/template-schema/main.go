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

// Command template-schema writes the JSON Schema of the Template kind to the file named by its
// argument: the schemas stencil-apiserver serves at /openapi/v3/apis/templates.stencil.dev/v1alpha1
// (built with the server's own OpenAPI v3 configuration, apiserver.OpenAPIV3Config), written as
// JSON Schema by pkg/typecheck/kindschema. hack/update-template-schema.sh runs it;
// test/clients checks the file against what a running server serves.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/builder3"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/typecheck/kindschema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "template-schema: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: template-schema OUTPUT")
	}
	definitions, err := builder3.BuildOpenAPIDefinitionsForResources(apiserver.OpenAPIV3Config(), v1alpha1.Template{}.OpenAPIModelName())
	if err != nil {
		return err
	}
	doc, err := json.Marshal(map[string]any{"openapi": "3.0.0", "components": map[string]any{"schemas": definitions}})
	if err != nil {
		return err
	}
	out, err := kindschema.Write(doc, kindschema.Kind{Group: v1alpha1.GroupName, Version: v1alpha1.SchemeGroupVersion.Version, Kind: "Template"})
	if err != nil {
		return err
	}
	return os.WriteFile(os.Args[1], out, 0o644)
}
