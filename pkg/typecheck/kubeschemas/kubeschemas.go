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

// Package kubeschemas carries the OpenAPI v3 schemas of every kind kube-apiserver serves by
// default, at the version the e2e suite runs, so that stencil lint checks the core kinds with
// no cluster. hack/update-kube-schemas.sh makes kubernetes.json.gz from the pinned
// k8s.io/kubernetes, as kube-apiserver builds its /openapi/v3, keeping only what the type
// check reads; hack/verify-kube-schemas.sh and the e2e suite (TestKubeSchemasMatchCluster)
// check that it is current.
package kubeschemas

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the schemas are embedded
	"encoding/json"
	"sync"

	"stencil.dev/stencil/pkg/typecheck"
)

// Version is the Kubernetes release the schemas are those of.
const Version = "v1.37.1"

// Source names the schemas in findings.
const Source = "Kubernetes " + Version

// ObjectMetaName is the name of ObjectMeta's schema, which checks the metadata of kinds
// whose own schema leaves it open (CRDs).
const ObjectMetaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

//go:embed kubernetes.json.gz
var compressed []byte

// stencilCompressed are the schemas of the Template kinds, ours and OpenShift's, as
// stencil-apiserver serves them (hack/update-template-schema.sh writes them).
//
//go:embed stencil.json.gz
var stencilCompressed []byte

// load decodes the schemas once per process; about 30 ms.
var load = sync.OnceValues(func() (*typecheck.Set, error) { return decode(compressed) })

// loadStencil decodes the Template kinds' schemas once per process.
var loadStencil = sync.OnceValues(func() (*typecheck.Set, error) { return decode(stencilCompressed) })

// decode reads a gzipped document of schemas.
func decode(gz []byte) (*typecheck.Set, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var doc typecheck.Document
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		return nil, err
	}
	return typecheck.NewSet(&doc), nil
}

// TemplateChecker returns the check of a template file's own fields against the Template
// kinds' schemas as stencil-apiserver serves them: kubectl's strict field validation refuses
// a member they do not declare (parameter: for parameters:) before the server reads it.
func TemplateChecker() (*typecheck.Checker, error) {
	set, err := loadStencil()
	if err != nil {
		return nil, err
	}
	return &typecheck.Checker{Resolver: typecheck.Static{Set: set, Source: "stencil-apiserver"}}, nil
}

// Set returns the schemas.
func Set() (*typecheck.Set, error) { return load() }

// Resolver returns the schemas as a resolver.
func Resolver() (typecheck.Static, error) {
	set, err := load()
	if err != nil {
		return typecheck.Static{}, err
	}
	return typecheck.Static{Set: set, Source: Source}, nil
}

// Checker returns a checker of the core kinds, with resolver before them when it is not nil
// (CRDs from files, a cluster's schemas), and ObjectMeta for the metadata of kinds that leave
// it open.
func Checker(resolver typecheck.Resolver) (*typecheck.Checker, error) {
	core, err := Resolver()
	if err != nil {
		return nil, err
	}
	chain := typecheck.Chain{core}
	if resolver != nil {
		chain = typecheck.Chain{resolver, core}
	}
	return &typecheck.Checker{Resolver: chain, Meta: core.Set.Named(ObjectMetaName), MetaSet: core.Set}, nil
}
