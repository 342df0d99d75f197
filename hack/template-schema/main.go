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
// first argument: the schemas stencil-apiserver serves at /openapi/v3/apis/templates.stencil.dev/v1alpha1
// (built with the server's own OpenAPI v3 configuration, apiserver.OpenAPIV3Config), written as
// JSON Schema by pkg/typecheck/kindschema. To the second it writes the same schemas, and
// OpenShift's Template's, as pkg/typecheck/kubeschemas embeds them for stencil lint's check of a
// template file's own fields (the part the type check reads, gzipped, as hack/pack-kube-schemas
// writes the core kinds'). hack/update-template-schema.sh runs it; test/clients checks the
// first file against what a running server serves.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"stencil.dev/stencil/pkg/apis/templates/openshift"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/apiserver"
	"stencil.dev/stencil/pkg/typecheck"
	"stencil.dev/stencil/pkg/typecheck/kindschema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "template-schema: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 3 {
		return fmt.Errorf("usage: template-schema JSON-SCHEMA-OUTPUT PACKED-OUTPUT")
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
	if err := os.WriteFile(os.Args[1], out, 0o644); err != nil {
		return err
	}
	both, err := builder3.BuildOpenAPIDefinitionsForResources(apiserver.OpenAPIV3Config(), v1alpha1.Template{}.OpenAPIModelName(), openshift.Template{}.OpenAPIModelName())
	if err != nil {
		return err
	}
	return pack(both, os.Args[2])
}

// pack writes schemas as pkg/typecheck/kubeschemas embeds them: the part the type check
// reads (typecheck.Document), compact JSON with sorted keys, gzipped without name or time.
func pack(schemas map[string]*spec.Schema, file string) error {
	full, err := json.Marshal(map[string]any{"components": map[string]any{"schemas": schemas}})
	if err != nil {
		return err
	}
	var doc typecheck.Document
	if err := json.Unmarshal(full, &doc); err != nil {
		return err
	}
	compact, err := json.Marshal(&doc)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(append(compact, '\n')); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, out.Bytes(), 0o644)
}
