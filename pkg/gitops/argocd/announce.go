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

package argocd

import (
	"bytes"
	"encoding/json"
	"strings"

	"stencil.dev/stencil/pkg/apis/templates"
)

// Announcement is one parameter announced to Argo CD's Parameters tab, in the shape of Argo
// CD's ParameterAnnouncement (reposerver/apiclient): a collection type (string, array, map),
// the type of its items for the UI, and the default as the one field of that collection.
type Announcement struct {
	Name           string            `json:"name"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"`
	String         *string           `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

// Announce returns one announcement per parameter of t, in the template's order. values are
// the render file's values (its values files and spec.parameters), which a render uses when
// the Application sets none: the default announced is that value, else the template's default,
// because Argo CD never sends an announced default back and a render applies these itself.
// A secret parameter never announces a value, nor does a generated one that has none (its
// value is derived at render time and is no one's to see here).
func Announce(t *templates.Template, values map[string]string) []Announcement {
	out := make([]Announcement, 0, len(t.Parameters))
	for i := range t.Parameters {
		p := &t.Parameters[i]
		a := Announcement{Name: p.Name, Title: p.DisplayName, Tooltip: tooltip(p), Required: p.Required}
		if a.Title == "" {
			a.Title = p.Name
		}
		a.CollectionType, a.ItemType = shape(p)
		value, given := values[p.Name]
		if !given {
			value = p.Value
		}
		if !p.Secret && value != "" {
			setDefault(&a, value)
		}
		out = append(out, a)
	}
	return out
}

// shape is the collection and item type the UI shows p as: a json parameter with items an
// array, with properties a map, every other parameter a string; items are numbers, booleans
// or strings as the type says.
func shape(p *templates.Parameter) (collection, item string) {
	if p.Type == templates.ParameterTypeJSON {
		switch {
		case p.Items != nil:
			return "array", itemType(p.Items.Type)
		case p.Properties != nil:
			item := ""
			for _, s := range p.Properties {
				switch t := itemType(s.Type); {
				case item == "":
					item = t
				case item != t:
					item = "string"
				}
			}
			if item == "" {
				item = "string"
			}
			return "map", item
		}
	}
	return "string", itemType(p.Type)
}

func itemType(t templates.ParameterType) string {
	switch t {
	case templates.ParameterTypeInt, templates.ParameterTypeNumber:
		return "number"
	case templates.ParameterTypeBool:
		return "boolean"
	}
	return "string"
}

// setDefault writes value into the field of a's collection type; a value that does not read
// as that collection (a json default that is not an array) is announced as a string, so that
// nothing the template says is lost.
func setDefault(a *Announcement, value string) {
	switch a.CollectionType {
	case "array":
		var elems []json.RawMessage
		if json.Unmarshal([]byte(value), &elems) == nil {
			a.Array = make([]string, len(elems))
			for i, e := range elems {
				a.Array[i] = elementText(e)
			}
			return
		}
	case "map":
		var members map[string]json.RawMessage
		if json.Unmarshal([]byte(value), &members) == nil {
			a.Map = make(map[string]string, len(members))
			for k, e := range members {
				a.Map[k] = elementText(e)
			}
			return
		}
	}
	v := value
	a.String = &v
}

// elementText is how the UI shows an element: a string as itself, anything else as its JSON.
func elementText(e json.RawMessage) string {
	var s string
	if len(e) > 0 && e[0] == '"' && json.Unmarshal(e, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, e) == nil {
		return b.String()
	}
	return string(e)
}

// tooltip is the description, with what the UI cannot show otherwise: the values allowed and
// that a value is generated when none is given.
func tooltip(p *templates.Parameter) string {
	parts := []string{}
	if p.Description != "" {
		parts = append(parts, p.Description)
	}
	if len(p.Enum) > 0 {
		parts = append(parts, "One of: "+strings.Join(p.Enum, ", ")+".")
	}
	if p.Generate != "" {
		parts = append(parts, "Generated when empty ("+p.From+").")
	}
	if p.Secret {
		parts = append(parts, "Secret: its value is never shown here.")
	}
	return strings.Join(parts, " ")
}
