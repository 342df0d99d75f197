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

package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/process/celparams"
)

// The names a repeated object refers to its element by.
const (
	itemName  = "ITEM"
	indexName = "INDEX"
)

// objectExpressions are the programs of a conditional or repeated object.
type objectExpressions struct {
	// includeWhen, when set, must be true for the object to be written.
	includeWhen *celProgram
	// forEach, when set, yields the list the object is written once for each element of.
	forEach *celProgram
}

// annotationPrefix is what both annotations start with: objects without it pay one search.
var annotationPrefix = []byte(`"templates.stencil.dev/`)

// referencesElement finds a reference to ITEM or INDEX in any of the syntax's forms.
var referencesElement = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(\{\{?|\(\(?)(` + itemName + `|` + indexName + `)(\}\}?|\)\)?)`)
})

// objectExpressions reads an object's include-when and for-each annotations, compiles them,
// and returns the object without them. ok is false when the object has errors, which the
// compiler keeps; an object that is no valid JSON is returned as it is, for compileObject to
// report.
func (c *compiler) objectExpressions(raw []byte, at objectPath) (out []byte, expr *objectExpressions, ok bool) {
	if !bytes.Contains(raw, annotationPrefix) {
		return raw, nil, true
	}
	compact, err := jsonbytes.Compact(raw)
	if err != nil || compact[0] != '{' {
		return raw, nil, true
	}
	top := objectMembers(compact)
	meta := findMember(top, "metadata", '{')
	if meta < 0 {
		return raw, nil, true
	}
	metaMembers := objectMembers(top[meta].value)
	anns := findMember(metaMembers, "annotations", '{')
	if anns < 0 {
		return raw, nil, true
	}
	annMembers := objectMembers(metaMembers[anns].value)
	annPath := func(key string) *field.Path {
		return at.path().Child("metadata", "annotations").Key(key)
	}
	expr = &objectExpressions{}
	found, ok := false, true
	kept := annMembers[:0:0]
	for _, m := range annMembers {
		key := string(jsonbytes.StringContent(m.key))
		want := celparams.Bool
		switch key {
		case templates.IncludeWhenAnnotation:
		case templates.ForEachAnnotation:
			want = celparams.List
		case templates.LifecycleAnnotation:
			// It stays on the object: the controller reads it there, and so does a user.
			if err := checkLifecycle(m.value, annPath(key)); err != nil {
				c.errs = append(c.errs, err)
				ok = false
			}
			kept = append(kept, m)
			continue
		default:
			kept = append(kept, m)
			continue
		}
		found = true
		if m.value[0] != '"' {
			c.errs = append(c.errs, field.Invalid(annPath(key), string(m.value), "must be a string holding a CEL expression"))
			ok = false
			continue
		}
		program := c.compileObjectExpression(string(jsonbytes.StringContent(m.value)), want, annPath(key))
		if program == nil {
			ok = false
		} else if want == celparams.Bool {
			expr.includeWhen = program
		} else {
			expr.forEach = program
		}
	}
	if !found {
		return raw, nil, ok
	}
	// The annotations never reach the output; neither does the map they leave empty.
	var annotations []byte
	if len(kept) > 0 {
		annotations = joinMembers(kept)
	}
	metaMembers[anns].value = annotations
	top[meta].value = joinMembers(metaMembers)
	out = joinMembers(top)
	if expr.forEach != nil && !c.nameFollowsElement(metaMembers, at) {
		ok = false
	}
	if ok && expr.forEach != nil {
		ok = c.declareElement()
	}
	return out, expr, ok
}

// nameFollowsElement checks that a repeated object's name refers to its element or index,
// so that each element makes an object of its own; generateName makes names of its own.
func (c *compiler) nameFollowsElement(metadata []member, at objectPath) bool {
	if findMember(metadata, "generateName", '"') >= 0 {
		return true
	}
	if name := findMember(metadata, "name", '"'); name >= 0 && referencesElement().Match(jsonbytes.StringContent(metadata[name].value)) {
		return true
	}
	var value any = ""
	if name := findMember(metadata, "name", '"'); name >= 0 {
		value = string(jsonbytes.StringContent(metadata[name].value))
	}
	c.errs = append(c.errs, field.Invalid(at.path().Child("metadata", "name"), value,
		"the name of a for-each object must refer to ${ITEM} or ${INDEX}, so that each element makes an object of its own"))
	return false
}

// declareElement gives ITEM and INDEX places past the parameters, the first time a repeated
// object needs them; compileObjects declares the names while it compiles such an object. A template that declares parameters of these names
// cannot have repeated objects.
func (c *compiler) declareElement() bool {
	if c.plan.item >= 0 {
		return true
	}
	ok := true
	for i, p := range c.template.Parameters {
		if p.Name == itemName || p.Name == indexName {
			c.errs = append(c.errs, field.Invalid(field.NewPath("parameters").Index(i).Child("name"), p.Name,
				"names the element of the template's for-each objects: rename the parameter"))
			ok = false
		}
	}
	if !ok {
		return false
	}
	c.plan.item = len(c.plan.params)
	c.plan.usage = append(c.plan.usage, 0, 0)
	return true
}

// member is one member of a compact JSON object.
type member struct {
	key, value []byte
}

// objectMembers lists the members of the compact JSON object obj.
func objectMembers(obj []byte) []member {
	var out []member
	for i := 1; obj[i] != '}'; {
		if obj[i] == ',' {
			i++
		}
		keyEnd := jsonbytes.SkipString(obj, i)
		valueEnd := jsonbytes.SkipValue(obj, keyEnd+1)
		out = append(out, member{key: obj[i:keyEnd], value: obj[keyEnd+1 : valueEnd]})
		i = valueEnd
	}
	return out
}

// findMember returns the index of the member named name whose value starts with first, or -1.
func findMember(members []member, name string, first byte) int {
	for i, m := range members {
		if len(m.value) > 0 && m.value[0] == first && string(jsonbytes.StringContent(m.key)) == name {
			return i
		}
	}
	return -1
}

// joinMembers writes members as a JSON object, leaving out those without a value.
func joinMembers(members []member) []byte {
	out := []byte{'{'}
	for _, m := range members {
		if m.value == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, m.key...)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}')
}

// writeExpanded writes a conditional or repeated object: not at all when its include-when is
// false, once per element of its for-each list with ITEM and INDEX set. An expression that
// cannot be evaluated is an error at its annotation; false means the output grew too large.
func (x *executor) writeExpanded(o *compiledObject, bounds []int) ([]int, bool) {
	annotation := func(key string) *field.Path { return o.at.path().Child("metadata", "annotations").Key(key) }
	if w := o.expr.includeWhen; w != nil {
		out, err := x.eval(w)
		include, isBool := false, false
		if err == nil {
			include, isBool = out.Value().(bool)
		}
		switch {
		case err != nil:
			x.errs = append(x.errs, field.Invalid(annotation(templates.IncludeWhenAnnotation), w.Source, "could not be evaluated: "+err.Error()))
			return bounds, true
		case !isBool:
			x.errs = append(x.errs, field.Invalid(annotation(templates.IncludeWhenAnnotation), w.Source, fmt.Sprintf("must evaluate to a bool, not %v", out.Type())))
			return bounds, true
		case !include:
			return bounds, true
		}
	}
	each := o.expr.forEach
	if each == nil {
		return x.writeObject(o, bounds)
	}
	out, err := x.eval(each)
	if err != nil {
		x.errs = append(x.errs, field.Invalid(annotation(templates.ForEachAnnotation), each.Source, "could not be evaluated: "+err.Error()))
		return bounds, true
	}
	list, isList := out.(traits.Lister)
	if !isList {
		x.errs = append(x.errs, field.Invalid(annotation(templates.ForEachAnnotation), each.Source, fmt.Sprintf("must evaluate to a list, not %v", out.Type())))
		return bounds, true
	}
	size, _ := list.Size().(types.Int)
	for k := types.Int(0); k < size; k++ {
		item, err := elementValue(list.Get(k))
		if err != nil {
			x.errs = append(x.errs, field.Invalid(annotation(templates.ForEachAnnotation), each.Source, fmt.Sprintf("element %d: %v", k, err)))
			return bounds, true
		}
		index := []byte(strconv.Itoa(int(k)))
		x.values[x.plan.item] = item
		x.values[x.plan.item+1] = paramValue{raw: string(index), text: index, json: index}
		x.element = int(k)
		var ok bool
		bounds, ok = x.writeObject(o, bounds)
		x.element = -1
		if !ok {
			return bounds, false
		}
	}
	return bounds, true
}

// eval evaluates an expression of the objects once per request: objects that share it share
// its result.
func (x *executor) eval(p *celProgram) (ref.Val, error) {
	if n := len(x.plan.cel.programs); len(x.results) != n {
		// Empty, or (pooled) another plan's room.
		if cap(x.results) < n {
			x.results = make([]evalResult, n)
		}
		x.results = x.results[:n]
		clear(x.results)
	}
	r := &x.results[p.id]
	if !r.done {
		r.val, r.err = p.Eval(x.celValues)
		r.done = true
	}
	return r.val, r.err
}

// evalResult is an expression's result for one request.
type evalResult struct {
	val  ref.Val
	err  error
	done bool
}

// elementValue is an element of a for-each list as ${ITEM} and ${{ITEM}} give it: a string
// as itself inside a string and as a JSON string on its own; any other value as its JSON.
func elementValue(v ref.Val) (paramValue, error) {
	native, err := nativeValue(v)
	if err != nil {
		return paramValue{}, err
	}
	if s, ok := native.(string); ok {
		return paramValue{raw: s, text: jsonbytes.AppendEscaped(nil, s), json: jsonbytes.AppendQuoted(nil, s)}, nil
	}
	encoded, err := json.Marshal(native)
	if err != nil {
		return paramValue{}, err
	}
	return paramValue{raw: string(encoded), text: jsonbytes.AppendEscaped(nil, encoded), json: encoded, null: native == nil}, nil
}

// nativeValue converts a CEL value to what encoding/json writes: lists and maps element by
// element, scalars as their Go values.
func nativeValue(v ref.Val) (any, error) {
	switch v := v.(type) {
	case types.Null:
		return nil, nil
	case traits.Mapper:
		out := map[string]any{}
		for it := v.Iterator(); it.HasNext() == types.True; {
			key := it.Next()
			name, ok := key.Value().(string)
			if !ok {
				return nil, fmt.Errorf("a map key of type %v cannot be JSON", key.Type())
			}
			value, err := nativeValue(v.Get(key))
			if err != nil {
				return nil, err
			}
			out[name] = value
		}
		return out, nil
	case traits.Lister:
		var out []any
		for it := v.Iterator(); it.HasNext() == types.True; {
			value, err := nativeValue(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, value)
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case types.String, types.Int, types.Uint, types.Double, types.Bool:
		return v.Value(), nil
	}
	return nil, fmt.Errorf("a value of type %v cannot be JSON", v.Type())
}

// checkLifecycle checks the value of an object's lifecycle annotation: retain or delete, or a
// parameter reference, which the controller checks once it is substituted.
func checkLifecycle(value []byte, at *field.Path) *field.Error {
	if value[0] == '"' {
		v := string(jsonbytes.StringContent(value))
		if v == templates.LifecycleRetain || v == templates.LifecycleDelete || strings.Contains(v, "${") || strings.Contains(v, "$(") {
			return nil
		}
		return field.NotSupported(at, v, []string{templates.LifecycleDelete, templates.LifecycleRetain})
	}
	return field.Invalid(at, string(value), "must be a string: "+templates.LifecycleDelete+" or "+templates.LifecycleRetain)
}
