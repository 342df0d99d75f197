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
	"regexp"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
)

// text checks a string of the template at path: what processing writes there, a string or,
// for ${{P}}, P's value as JSON, against the field's view.
func (w *walk) text(path *field.Path, s string, view *view) {
	sub := process.Substitution{Kind: process.Literal, Text: s}
	if w.subs != nil {
		sub = w.subs.Value(s)
	}
	switch sub.Kind {
	case process.Literal:
		if !view.takes("string") {
			w.add(path, Error, WrongType, "%q is a string; the field takes %s", sub.Text, typeWords(view.types))
		} else if len(view.enum) > 0 && !view.allows(sub.Text) {
			w.add(path, Error, EnumValue, "%q is not one of %s", sub.Text, enumWords(view.enum))
		}
	case process.Text:
		if !view.takes("string") {
			w.add(path, Error, WrongType, "%q substitutes as text, so the field gets a string; it takes %s%s",
				s, typeWords(view.types), typedHint(s, view))
		}
	case process.Typed:
		w.typed(path, s, sub, view)
	}
}

// wholeReference matches a string that is one untyped reference, for the hint of a message.
var wholeReference = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$(?:\{([A-Za-z0-9_]+)\}|\(([A-Za-z_][A-Za-z0-9_]*)\))$`)
})

// typedHint tells how to get a number or a boolean from a parameter that is one untyped
// reference.
func typedHint(s string, view *view) string {
	m := wholeReference().FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	name := m[1] + m[2]
	switch {
	case view.takes("integer"):
		return fmt.Sprintf(": write ${{%s}}, with %s of type int", name, name)
	case view.takes("boolean"):
		return fmt.Sprintf(": write ${{%s}}, with %s of type bool", name, name)
	}
	return fmt.Sprintf(": write ${{%s}}", name)
}

// typed checks ${{P}}, which writes P's value as JSON: of P's type when it has one, or of
// whatever JSON the value is. A value that is not JSON stays a string.
func (w *walk) typed(path *field.Path, s string, sub process.Substitution, view *view) {
	if sub.Param == nil {
		// A for-each object's element is any JSON value; its index an integer.
		if sub.Element == "INDEX" && !view.takes("integer") {
			w.add(path, Error, WrongType, "%s is the element's index, an integer; the field takes %s", s, typeWords(view.types))
		}
		return
	}
	p := sub.Param
	typ := ""
	switch p.Type {
	case templates.ParameterTypeInt:
		typ = "integer"
	case templates.ParameterTypeBool:
		typ = "boolean"
	case templates.ParameterTypeNumber:
		switch {
		case onlyInteger(view):
			w.add(path, Warning, WrongType, "%s writes %s, a number parameter: a value with a fraction does not fit, the field takes an integer; declare %s type: int",
				s, p.Name, p.Name)
		case !view.takes("number"):
			w.add(path, Error, WrongType, "%s writes %s, a number parameter, as a number; the field takes %s", s, p.Name, typeWords(view.types))
		}
		return
	case templates.ParameterTypeJSON:
		switch {
		case p.Items != nil:
			typ = "array"
		case p.Properties != nil:
			typ = "object"
		default:
			return
		}
	default:
		w.byDefault(path, s, p, view)
		return
	}
	if !view.takes(typ) {
		w.add(path, Error, WrongType, "%s writes %s, a parameter of type %s, as %s; the field takes %s",
			s, p.Name, p.Type, typeWords([]string{typ}), typeWords(view.types))
	}
}

// onlyInteger reports whether the field takes integers and no other number.
func onlyInteger(view *view) bool {
	hasInteger := false
	for _, t := range view.types {
		if t == "number" {
			return false
		}
		hasInteger = hasInteger || t == "integer"
	}
	return hasInteger
}

// byDefault judges ${{P}} of a string or base64 parameter by P's default, the value written
// when the caller gives none: a warning, since a caller's value may fit. A parameter without
// a default, or generated, may make any JSON value.
func (w *walk) byDefault(path *field.Path, s string, p *templates.Parameter, view *view) {
	if p.Value == "" || p.Generate != "" {
		return
	}
	var v any
	dec := json.NewDecoder(stringReader(p.Value))
	dec.UseNumber()
	typ := "string"
	if json.Valid([]byte(p.Value)) && dec.Decode(&v) == nil {
		switch n := v.(type) {
		case nil:
			return
		case json.Number:
			typ = "number"
			if isInteger(string(n)) {
				typ = "integer"
			}
		case bool:
			typ = "boolean"
		case []any:
			typ = "array"
		case map[string]any:
			typ = "object"
		}
	}
	if !view.takes(typ) {
		w.add(path, Warning, WrongType, "%s writes %s's default %q as %s; the field takes %s", s, p.Name, p.Value, typeWords([]string{typ}), typeWords(view.types))
	} else if typ == "string" && len(view.enum) > 0 && !view.allows(p.Value) {
		w.add(path, Warning, EnumValue, "%s writes %s's default %q, which is not one of %s", s, p.Name, p.Value, enumWords(view.enum))
	}
}

// stringReader reads a string without copying it.
func stringReader(s string) *strings.Reader { return strings.NewReader(s) }
