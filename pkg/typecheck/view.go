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
)

// view is a schema with its references followed and its allOf folded in: kube-apiserver
// wraps a reference with a default in allOf, and a structural schema (a CRD's) repeats in its
// junctors only what it declares outside them.
type view struct {
	// types are the JSON types the field takes; empty takes any.
	types      []string
	properties map[string]*Schema
	additional *Additional
	items      *Schema
	required   []string
	enum       []json.RawMessage
	preserve   bool
	embedded   bool
}

// viewOf returns the view of schema in set, nil when a reference dangles. Views are kept for
// the run: a schema is looked at once per field of each object.
func (r *run) viewOf(schema *Schema, set *Set) *view {
	if v, ok := r.views[schema]; ok {
		return v
	}
	v := &view{}
	r.fold(v, schema, set, map[*Schema]bool{})
	r.views[schema] = v
	return v
}

// fold adds schema, and what its allOf and anyOf/oneOf say of types, to v. seen holds the
// schemas already folded into v: a schema whose allOf names itself, directly or through
// others, is folded once, so that a recursive or repetitive schema (a hostile --schema-dir)
// costs at most one visit per schema of the set.
func (r *run) fold(v *view, schema *Schema, set *Set, seen map[*Schema]bool) {
	s := set.resolve(schema)
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	switch {
	case s.IntOrString:
		v.types = addTypes(v.types, "integer", "string")
	case s.Type != "":
		v.types = addTypes(v.types, s.Type)
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
		// Quantity is oneOf string or number; a branch without a type takes anything.
		var types []string
		for _, b := range append(append([]*Schema{}, s.AnyOf...), s.OneOf...) {
			bv := &view{}
			r.fold(bv, b, set, seen)
			if len(bv.types) == 0 {
				types = nil
				break
			}
			types = addTypes(types, bv.types...)
		}
		v.types = addTypes(v.types, types...)
	}
	if len(s.Properties) > 0 {
		if v.properties == nil {
			v.properties = s.Properties
		} else {
			merged := make(map[string]*Schema, len(v.properties)+len(s.Properties))
			for k, p := range v.properties {
				merged[k] = p
			}
			for k, p := range s.Properties {
				merged[k] = p
			}
			v.properties = merged
		}
	}
	if s.AdditionalProperties != nil {
		v.additional = s.AdditionalProperties
	}
	if s.Items != nil {
		v.items = s.Items
	}
	v.required = append(v.required, s.Required...)
	if len(s.Enum) > 0 {
		v.enum = s.Enum
	}
	v.preserve = v.preserve || s.PreserveUnknownFields
	v.embedded = v.embedded || s.EmbeddedResource
	for _, sub := range s.AllOf {
		r.fold(v, sub, set, seen)
	}
}

// addTypes adds types to a list without repeating one.
func addTypes(list []string, types ...string) []string {
	for _, t := range types {
		found := false
		for _, have := range list {
			found = found || have == t
		}
		if !found {
			list = append(list, t)
		}
	}
	return list
}

// takes reports whether a field of v takes a value of JSON type typ: any type when v names
// none, integers where numbers go.
func (v *view) takes(typ string) bool {
	if len(v.types) == 0 || typ == "" {
		return true
	}
	for _, t := range v.types {
		if t == typ || t == "number" && typ == "integer" {
			return true
		}
	}
	return false
}

// allows reports whether value, as JSON, is one of the enum's values.
func (v *view) allows(value any) bool {
	raw, err := json.Marshal(value)
	if err != nil {
		return true
	}
	for _, e := range v.enum {
		if bytes.Equal(bytes.TrimSpace(e), raw) {
			return true
		}
	}
	return false
}
