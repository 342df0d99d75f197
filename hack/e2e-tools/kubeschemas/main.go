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

// Command kubeschemas prints, as one OpenAPI v3 document, the schemas kube-apiserver of the
// pinned k8s.io/kubernetes serves at /openapi/v3 for every group version it serves by default:
// the same generated definitions, definition namer, feature-gate filter and v3 builder as
// kube-apiserver (pkg/controlplane/apiserver BuildGenericConfig). hack/update-kube-schemas.sh
// compacts its output into pkg/typecheck/kubeschemas.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"

	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/openapi"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/controlplane"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kubeschemas: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	schemes := []*runtime.Scheme{legacyscheme.Scheme, apiextensionsapiserver.Scheme, aggregatorscheme.Scheme}
	definitions := openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions)
	config := genericapiserver.DefaultOpenAPIV3Config(definitions, openapinamer.NewDefinitionNamer(schemes...))

	served := servedGroupVersions()
	known := definitions(func(string) spec.Ref { return spec.Ref{} })
	names := map[string]bool{}
	for _, s := range schemes {
		for gvk, t := range s.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal || !served[gvk.GroupVersion()] {
				continue
			}
			if t.Kind() != reflect.Struct {
				continue
			}
			name := t.PkgPath() + "." + t.Name()
			// Kubernetes names its models after their OpenAPI names (io.k8s.api.apps.v1.Deployment).
			if named, ok := reflect.New(t).Interface().(interface{ OpenAPIModelName() string }); ok {
				name = named.OpenAPIModelName()
			}
			if _, ok := known[name]; ok {
				names[name] = true
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	schemas, err := builder3.BuildOpenAPIDefinitionsForResources(config, sorted...)
	if err != nil {
		return err
	}
	// Each kind's x-kubernetes-group-version-kind names every version the schemes register
	// it in; only the served ones stay.
	for _, s := range schemas {
		gvks, ok := s.Extensions["x-kubernetes-group-version-kind"].([]interface{})
		if !ok {
			continue
		}
		var kept []interface{}
		for _, g := range gvks {
			m, _ := g.(map[string]interface{})
			group, _ := m["group"].(string)
			version, _ := m["version"].(string)
			if served[schema.GroupVersion{Group: group, Version: version}] {
				kept = append(kept, g)
			}
		}
		if len(kept) == 0 {
			delete(s.Extensions, "x-kubernetes-group-version-kind")
		} else {
			s.Extensions["x-kubernetes-group-version-kind"] = kept
		}
	}
	doc := map[string]interface{}{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": "v1.37.1"},
		"components": map[string]interface{}{"schemas": schemas},
	}
	return json.NewEncoder(os.Stdout).Encode(doc)
}

// servedGroupVersions are the group versions kube-apiserver serves by default: its own
// (controlplane.DefaultAPIResourceConfigSource, a version on or a resource of it on), and the
// v1 of the CRD and APIService servers it hosts.
func servedGroupVersions() map[schema.GroupVersion]bool {
	config := controlplane.DefaultAPIResourceConfigSource()
	served := map[schema.GroupVersion]bool{
		{Group: "apiextensions.k8s.io", Version: "v1"}:   true,
		{Group: "apiregistration.k8s.io", Version: "v1"}: true,
	}
	for gv, on := range config.GroupVersionConfigs {
		if on {
			served[gv] = true
		}
	}
	for gvr, on := range config.ResourceConfigs {
		if on {
			served[gvr.GroupVersion()] = true
		}
	}
	return served
}
