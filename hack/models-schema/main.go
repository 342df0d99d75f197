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

// Command models-schema prints the generated OpenAPI definitions as a Swagger 2.0 document,
// the input applyconfiguration-gen needs to know each type's structure.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"stencil.dev/stencil/pkg/generated/openapi"
)

func main() {
	if err := writeSwagger(); err != nil {
		fmt.Fprintf(os.Stderr, "models-schema: %v\n", err)
		os.Exit(1)
	}
}

func writeSwagger() error {
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + name) }
	definitions := spec.Definitions{}
	for name, def := range openapi.GetOpenAPIDefinitions(ref) {
		// Definitions may carry a separate v2 form; applyconfiguration-gen reads v2.
		if v2, ok := def.Schema.Extensions[common.ExtensionV2Schema].(spec.Schema); ok {
			definitions[name] = v2
			continue
		}
		definitions[name] = def.Schema
	}
	doc := spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "Stencil", Version: "unversioned"}},
		Definitions: definitions,
	}}
	return json.NewEncoder(os.Stdout).Encode(&doc)
}
