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

package typecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"stencil.dev/stencil/pkg/positions"
)

// The bounds of a schema directory: a CRD's manifest is rarely over 1 MiB, and a directory of
// a cluster's CRDs rarely over a few hundred files.
const (
	// MaxSchemaFileBytes bounds one file of a schema directory.
	MaxSchemaFileBytes = 16 << 20
	// MaxSchemaDirBytes bounds all the files of the directories together.
	MaxSchemaDirBytes = 128 << 20
	// MaxSchemaFiles bounds how many files the directories hold.
	MaxSchemaFiles = 5000
)

// crdManifest is the part of a CustomResourceDefinition (apiextensions.k8s.io/v1, or
// v1beta1's validation) that names its kinds and their schemas.
type crdManifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Version    string        `json:"version"`
		Validation *crdSchema    `json:"validation"`
		Versions   []crdVersions `json:"versions"`
	} `json:"spec"`
}

type crdVersions struct {
	Name   string     `json:"name"`
	Served *bool      `json:"served"`
	Schema *crdSchema `json:"schema"`
}

type crdSchema struct {
	OpenAPIV3Schema *Schema `json:"openAPIV3Schema"`
}

// LoadDir reads the schemas of the YAML and JSON files under dirs (recursively): CRD
// manifests (apiextensions.k8s.io, several per file as a YAML stream or a v1 List), and
// OpenAPI v3 documents (what a cluster serves at /openapi/v3/apis/GROUP/VERSION). Other
// documents are skipped. A file, or the directories together, over the bounds is an error
// that names it, as is a file that is not YAML.
func LoadDir(dirs ...string) (*Set, error) {
	var docs []*Document
	total, files := int64(0), 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !schemaFile(path) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if files++; files > MaxSchemaFiles {
				return fmt.Errorf("%s: more than %d schema files", dir, MaxSchemaFiles)
			}
			if info.Size() > MaxSchemaFileBytes {
				return fmt.Errorf("%s: %d MiB, over the %d MiB a schema file may have", path, info.Size()>>20, MaxSchemaFileBytes>>20)
			}
			if total += info.Size(); total > MaxSchemaDirBytes {
				return fmt.Errorf("%s: the schema files reach %d MiB, over the %d MiB they may have together", dir, total>>20, MaxSchemaDirBytes>>20)
			}
			found, err := readSchemaFile(path)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			docs = append(docs, found...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return NewSet(docs...), nil
}

// schemaFile reports whether a file name is one LoadDir reads.
func schemaFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// readSchemaFile reads the documents of one file.
func readSchemaFile(path string) ([]*Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size was checked; a file that grew since is still read no further than the bound.
	reader := utilyaml.NewYAMLReader(bufio.NewReader(io.LimitReader(f, MaxSchemaFileBytes+1)))
	var docs []*Document
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		data, err := positions.YAMLToJSON(raw)
		if err != nil {
			return nil, err
		}
		found, err := schemaDocuments(data)
		if err != nil {
			return nil, err
		}
		docs = append(docs, found...)
	}
}

// schemaDocuments reads one JSON document: a CRD, a List of them, or an OpenAPI document.
func schemaDocuments(data []byte) ([]*Document, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" || data[0] != '{' {
		return nil, nil
	}
	var head struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
		OpenAPI    string            `json:"openapi"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, err
	}
	switch {
	case head.OpenAPI != "":
		var doc Document
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("an OpenAPI document: %v", err)
		}
		return []*Document{&doc}, nil
	case head.Kind == "CustomResourceDefinition" && strings.HasPrefix(head.APIVersion, "apiextensions.k8s.io/"):
		var crd crdManifest
		if err := json.Unmarshal(data, &crd); err != nil {
			return nil, fmt.Errorf("a CustomResourceDefinition: %v", err)
		}
		return []*Document{crdDocument(&crd)}, nil
	case strings.HasSuffix(head.Kind, "List"):
		var out []*Document
		for _, item := range head.Items {
			found, err := schemaDocuments(item)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
		}
		return out, nil
	}
	return nil, nil
}

// crdDocument writes a CRD's schemas as an OpenAPI document: one schema per served version,
// named as kube-apiserver names them, each marked with its kind.
func crdDocument(crd *crdManifest) *Document {
	doc := &Document{}
	doc.Components.Schemas = map[string]*Schema{}
	add := func(version string, schema *crdSchema) {
		if schema == nil || schema.OpenAPIV3Schema == nil || crd.Spec.Names.Kind == "" || version == "" {
			return
		}
		s := *schema.OpenAPIV3Schema
		s.GroupVersionKind = []GroupVersionKind{{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}}
		doc.Components.Schemas[reverseDomain(crd.Spec.Group)+"."+version+"."+crd.Spec.Names.Kind] = &s
	}
	for _, v := range crd.Spec.Versions {
		if v.Served != nil && !*v.Served {
			continue
		}
		schema := v.Schema
		if schema == nil {
			schema = crd.Spec.Validation
		}
		add(v.Name, schema)
	}
	if len(crd.Spec.Versions) == 0 {
		add(crd.Spec.Version, crd.Spec.Validation)
	}
	return doc
}

// reverseDomain writes a group as kube-apiserver's schema names do: example.com is com.example.
func reverseDomain(group string) string {
	parts := strings.Split(group, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}
