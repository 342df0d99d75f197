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

package templates

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxTypeErrors bounds the problems JSONTypeErrors reports for one body.
const maxTypeErrors = 16

// maxShownJSON bounds how much of a value a type error repeats.
const maxShownJSON = 64

// JSONTypeErrors reports where the JSON value data does not have the JSON types that a value of
// Go type t reads (as encoding/json and the API server's case-sensitive decoder read them), each
// at its field path below root and worded about the template: "parameters[0].required: Invalid
// value: \"yes\": must be true or false", where the decoder would have said "cannot unmarshal
// string into Go struct field Parameter.parameters.required of type bool". A member of a type
// that reads itself (json.Unmarshaler) is reported with that reader's error. Members t does not
// have are not its business; invalid JSON gives no errors (the decoder's message says where).
func JSONTypeErrors(data []byte, t reflect.Type, root *field.Path) field.ErrorList {
	v, ok := decodeMembers(data)
	if !ok {
		return nil
	}
	w := typeWalker{}
	w.walk(v, t, root)
	return w.errs
}

type typeWalker struct {
	errs field.ErrorList
}

var (
	jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

func (w *typeWalker) add(path *field.Path, v any, detail string) {
	if len(w.errs) < maxTypeErrors {
		w.errs = append(w.errs, field.Invalid(path, ShortJSON(marshal(v)), detail))
	}
}

func (w *typeWalker) walk(v any, t reflect.Type, path *field.Path) {
	if v == nil || len(w.errs) >= maxTypeErrors {
		return // null reads as nothing, whatever the type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		target := reflect.New(t).Interface().(json.Unmarshaler)
		if err := target.UnmarshalJSON(marshal(v)); err != nil {
			w.add(path, v, err.Error())
		}
		return
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		s, ok := v.(string)
		if !ok {
			w.add(path, v, "must be a string")
			return
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			w.add(path, v, err.Error())
		}
		return
	}
	switch t.Kind() {
	case reflect.Interface:
	case reflect.String:
		if _, ok := v.(string); !ok {
			w.add(path, v, "must be a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			w.add(path, v, "must be true or false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); !ok || err != nil {
			w.add(path, v, "must be an integer")
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); !ok || err != nil {
			w.add(path, v, "must be a non-negative integer")
		}
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if _, err := strconv.ParseFloat(string(n), t.Bits()); !ok || err != nil {
			w.add(path, v, "must be a number")
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			if _, ok := v.(string); !ok {
				w.add(path, v, "must be a string of base64")
			}
			return
		}
		items, ok := v.([]any)
		if !ok {
			w.add(path, v, "must be an array")
			return
		}
		for i, item := range items {
			w.walk(item, t.Elem(), path.Index(i))
		}
	case reflect.Map:
		members, ok := v.(jsonObject)
		if !ok {
			w.add(path, v, "must be an object")
			return
		}
		for _, m := range members.sorted() {
			w.walk(m.value, t.Elem(), path.Key(m.name))
		}
	case reflect.Struct:
		members, ok := v.(jsonObject)
		if !ok {
			w.add(path, v, "must be an object")
			return
		}
		fields := jsonFields(t)
		for _, m := range members.sorted() {
			if f, ok := fields[m.name]; ok {
				w.walk(m.value, f, path.Child(m.name))
			}
		}
	}
}

// jsonFields maps the JSON names of t's fields to their types, inline embedded structs
// flattened, as encoding/json reads them (case-sensitively, as the API server does).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, options, _ := strings.Cut(tag, ",")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct || strings.Contains(options, "inline") {
			for k, v := range jsonFields(ft) {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// marshal is the JSON text of a decoded value; json.Number keeps the number as written.
func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// shownJSON is a JSON value as a field error shows it: as JSON text, so that "10" and 10
// differ.
type shownJSON string

// String is the text shown.
func (s shownJSON) String() string { return string(s) }

// MarshalJSON is the text itself, which field errors print first; text cut short is no JSON,
// and they fall back to String.
func (s shownJSON) MarshalJSON() ([]byte, error) { return []byte(s), nil }

// ShortJSON is JSON text as a field error shows it (Invalid value: 10, Invalid value: "10"),
// cut short when long.
func ShortJSON(raw []byte) fmtStringer {
	s := string(raw)
	if len(s) > maxShownJSON {
		s = s[:maxShownJSON] + "..."
	}
	return shownJSON(s)
}

// fmtStringer is what field.Invalid prints with String.
type fmtStringer interface{ String() string }
