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
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/process"
)

// walk checks the values of one object against its kind's schema.
type walk struct {
	*run
	subs *process.Substitutions
	set  *Set
	// kind names the object's kind in messages: Deployment (apps/v1).
	kind string
}

// value checks v at path against schema; top marks an object with its own apiVersion, kind
// and metadata (the template's object, or an embedded resource).
func (w *walk) value(path *field.Path, v any, schema *Schema, set *Set, top bool) {
	view := w.viewOf(schema, set)
	if view == nil {
		return
	}
	switch value := v.(type) {
	case nil:
		// kube-apiserver reads null as the field left out, in every field.
	case string:
		w.text(path, value, view)
	case json.Number:
		typ := "number"
		if isInteger(string(value)) {
			typ = "integer"
		}
		if !view.takes(typ) {
			w.add(path, Error, WrongType, "%s is a number; the field takes %s", value, typeWords(view.types))
		} else if len(view.enum) > 0 && !view.allows(value) {
			w.add(path, Error, EnumValue, "%s is not one of %s", value, enumWords(view.enum))
		}
	case bool:
		if !view.takes("boolean") {
			w.add(path, Error, WrongType, "%t is a boolean; the field takes %s", value, typeWords(view.types))
		} else if len(view.enum) > 0 && !view.allows(value) {
			w.add(path, Error, EnumValue, "%t is not one of %s", value, enumWords(view.enum))
		}
	case []any:
		if !view.takes("array") {
			w.add(path, Error, WrongType, "a list; the field takes %s", typeWords(view.types))
			return
		}
		if view.items != nil {
			for i, item := range value {
				w.value(path.Index(i), item, view.items, set, false)
			}
		}
	case map[string]any:
		if !view.takes("object") {
			w.add(path, Error, WrongType, "an object; the field takes %s", typeWords(view.types))
			return
		}
		w.members(path, value, view, set, top || view.embedded)
	}
}

// members checks the members of an object: names the schema does not have, the values of
// those it has, and the required ones left out.
func (w *walk) members(path *field.Path, obj map[string]any, view *view, set *Set, top bool) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// A member whose name is substituted could be any field, so nothing is missing then.
	dynamic := false
	open := view.preserve || len(view.properties) == 0 && view.additional == nil
	for _, k := range keys {
		child := path.Child(k)
		if w.subs != nil {
			if sub := w.subs.Key(k); sub.Kind != process.Literal {
				dynamic = true
				continue
			} else if sub.Text != k {
				child, k = path.Child(sub.Text), sub.Text
			}
		}
		if top && (k == "apiVersion" || k == "kind" || k == "metadata") {
			if prop := view.properties[k]; k == "metadata" && (prop == nil || w.opaque(prop, set)) {
				if w.c.Meta != nil {
					w.value(child, obj[k], w.c.Meta, w.c.MetaSet, false)
				}
				continue
			}
		}
		if prop, ok := view.properties[k]; ok {
			w.value(child, obj[k], prop, set, false)
			continue
		}
		switch {
		case view.additional != nil && view.additional.Schema != nil:
			w.value(path.Key(k), obj[k], view.additional.Schema, set, false)
		case view.additional != nil && view.additional.Allowed, open:
		case top && (k == "apiVersion" || k == "kind"):
		default:
			w.add(child, Error, UnknownField, "unknown field %q of %s%s", k, w.kind, suggestion(k, view.properties))
		}
	}
	if dynamic {
		return
	}
	for _, name := range view.required {
		if _, ok := obj[name]; !ok {
			w.add(path.Child(name), Error, RequiredField, "%s needs %s here", w.kind, name)
		}
	}
}

// opaque reports whether a metadata schema says nothing of its members, as a CRD's does.
func (w *walk) opaque(schema *Schema, set *Set) bool {
	v := w.viewOf(schema, set)
	return v == nil || len(v.properties) == 0
}

// isInteger reports whether a JSON number is written without fraction or exponent, as
// kube-apiserver's decoder wants an integer field's value.
func isInteger(n string) bool { return !strings.ContainsAny(n, ".eE") }

// typeWords names JSON types in a message.
func typeWords(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer":
			words[i] = "an integer"
		case "array":
			words[i] = "a list"
		case "object":
			words[i] = "an object"
		default:
			words[i] = "a " + t
		}
	}
	return strings.Join(words, " or ")
}

// enumWords lists an enum's values in a message.
func enumWords(enum []json.RawMessage) string {
	words := make([]string, len(enum))
	for i, e := range enum {
		words[i] = string(e)
	}
	return strings.Join(words, ", ")
}

// suggestion proposes the field a misspelt name probably meant: the one at the smallest edit
// distance, two at most, or the same name in another case.
func suggestion(name string, properties map[string]*Schema) string {
	best, bestDistance := "", 3
	for p := range properties {
		d := distance(strings.ToLower(name), strings.ToLower(p))
		if strings.EqualFold(name, p) {
			d = 0
		}
		if d < bestDistance || d == bestDistance && p < best {
			best, bestDistance = p, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// distance is the Levenshtein distance of two short names.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
