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
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// Schema is the part of an OpenAPI v3 schema (kube-apiserver's /openapi/v3, a CRD's
// openAPIV3Schema) that the type check reads. Decoding a document into it keeps nothing else:
// descriptions, which are most of a document's bytes, are dropped as it is read.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	AdditionalProperties *Additional        `json:"additionalProperties,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Enum                 []json.RawMessage  `json:"enum,omitempty"`
	AllOf                []*Schema          `json:"allOf,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	Nullable             bool               `json:"nullable,omitempty"`
	// IntOrString is x-kubernetes-int-or-string: an integer or a string.
	IntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// PreserveUnknownFields is x-kubernetes-preserve-unknown-fields: members the schema does
	// not name are kept, not unknown.
	PreserveUnknownFields bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// EmbeddedResource is x-kubernetes-embedded-resource: an object with its own apiVersion,
	// kind and metadata.
	EmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// GroupVersionKind is x-kubernetes-group-version-kind: the kinds this schema is the
	// schema of.
	GroupVersionKind []GroupVersionKind `json:"x-kubernetes-group-version-kind,omitempty"`
}

// Additional is additionalProperties: false, true or a schema of every other member.
type Additional struct {
	Allowed bool
	Schema  *Schema
}

// UnmarshalJSON reads a boolean or a schema.
func (a *Additional) UnmarshalJSON(data []byte) error {
	switch string(bytes.TrimSpace(data)) {
	case "true":
		*a = Additional{Allowed: true}
		return nil
	case "false":
		*a = Additional{}
		return nil
	}
	a.Allowed, a.Schema = true, &Schema{}
	return json.Unmarshal(data, a.Schema)
}

// MarshalJSON writes a boolean or a schema.
func (a Additional) MarshalJSON() ([]byte, error) {
	if a.Schema != nil {
		return json.Marshal(a.Schema)
	}
	return json.Marshal(a.Allowed)
}

// GroupVersionKind names a kind as x-kubernetes-group-version-kind does.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// APIVersion is the kind's apiVersion as objects write it.
func (g GroupVersionKind) APIVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// ParseAPIVersion splits an apiVersion into its group and version.
func ParseAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// Document is an OpenAPI v3 document as far as its schemas go.
type Document struct {
	Components struct {
		Schemas map[string]*Schema `json:"schemas"`
	} `json:"components"`
}

// refPrefix starts every reference of kube-apiserver's documents.
const refPrefix = "#/components/schemas/"

// Set is the schemas of one or more documents, indexed by the kinds they describe. It is
// immutable once built, so that the server's requests share it.
type Set struct {
	// schemas by their name in components.schemas (references resolve here).
	schemas map[string]*Schema
	// kinds by apiVersion and kind.
	kinds map[GroupVersionKind]*Schema
	// versions lists, for each group, the versions that serve each kind.
	versions map[string]map[string][]string
}

// NewSet indexes the schemas of documents; a later document's schema of a name or a kind
// replaces an earlier one's.
func NewSet(docs ...*Document) *Set {
	s := &Set{schemas: map[string]*Schema{}, kinds: map[GroupVersionKind]*Schema{}, versions: map[string]map[string][]string{}}
	for _, d := range docs {
		for name, schema := range d.Components.Schemas {
			s.schemas[name] = schema
			for _, gvk := range schema.GroupVersionKind {
				s.addKind(gvk, schema)
			}
		}
	}
	return s
}

// addKind indexes schema as the schema of gvk.
func (s *Set) addKind(gvk GroupVersionKind, schema *Schema) {
	if _, known := s.kinds[gvk]; !known {
		byKind := s.versions[gvk.Group]
		if byKind == nil {
			byKind = map[string][]string{}
			s.versions[gvk.Group] = byKind
		}
		byKind[gvk.Kind] = append(byKind[gvk.Kind], gvk.Version)
	}
	s.kinds[gvk] = schema
}

// Kind returns the schema of a kind, nil when the set has none.
func (s *Set) Kind(gvk GroupVersionKind) *Schema { return s.kinds[gvk] }

// Versions returns the versions of group that serve kind in this set, and whether the set
// knows the group at all.
func (s *Set) Versions(group, kind string) (versions []string, groupKnown bool) {
	byKind, known := s.versions[group]
	return byKind[kind], known
}

// Kinds lists the kinds the set describes, sorted by group, version and kind.
func (s *Set) Kinds() []GroupVersionKind {
	out := make([]GroupVersionKind, 0, len(s.kinds))
	for gvk := range s.kinds {
		out = append(out, gvk)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	return out
}

// Named returns the schema of a name of components.schemas.
func (s *Set) Named(name string) *Schema { return s.schemas[name] }

// Len is the number of kinds the set describes.
func (s *Set) Len() int { return len(s.kinds) }

// resolve follows $ref, within the set, until a schema without one; nil when it dangles.
func (s *Set) resolve(schema *Schema) *Schema {
	for depth := 0; schema != nil && schema.Ref != ""; depth++ {
		if depth > 64 || !strings.HasPrefix(schema.Ref, refPrefix) {
			return nil
		}
		schema = s.schemas[unescapePointer(strings.TrimPrefix(schema.Ref, refPrefix))]
	}
	return schema
}

// unescapePointer undoes JSON Pointer's escapes of a reference token.
func unescapePointer(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
}
