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

package celparams

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/interpreter"
	"k8s.io/apimachinery/pkg/util/sets"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"stencil.dev/stencil/pkg/apis/templates"
)

// paramsType declares params: an object with one field per parameter, typed. A json
// parameter is a list when it has items, an object when it has properties, else any value.
func paramsType(params []templates.Parameter) *apiservercel.DeclType {
	fields := make(map[string]*apiservercel.DeclField, len(params))
	for i := range params {
		p := &params[i]
		name, ok := apiservercel.Escape(p.Name)
		if !ok {
			continue
		}
		var t *apiservercel.DeclType
		switch {
		case p.Type == templates.ParameterTypeJSON && p.Items != nil:
			elem := valueType(*p.Items)
			maxItems := (celconfig.MaxRequestSizeBytes - 2) / (elem.MinSerializedSize + 1)
			if p.MaxItems != nil && *p.MaxItems >= 0 {
				maxItems = *p.MaxItems
			}
			t = apiservercel.NewListType(elem, maxItems)
		case p.Type == templates.ParameterTypeJSON && len(p.Properties) > 0:
			members := make(map[string]*apiservercel.DeclField, len(p.Properties))
			for member, s := range p.Properties {
				if escaped, ok := apiservercel.Escape(member); ok {
					members[escaped] = apiservercel.NewDeclField(escaped, valueType(s), false, nil, nil)
				}
			}
			t = apiservercel.NewObjectType(typeName+"."+name, members)
		default:
			t = valueType(p.Schema())
		}
		if t != nil {
			fields[name] = apiservercel.NewDeclField(name, t, false, nil, nil)
		}
	}
	return apiservercel.NewObjectType(typeName, fields)
}

// typeName names params' type. The type provider registers nested types by their path below
// it, and a name that starts like the variable would make params.X resolve as a type name.
const typeName = "StencilParams"

// valueType declares a value of one schema, with the sizes CRD validation would estimate for
// the same OpenAPI schema; json is any value, as large as a request.
func valueType(s templates.JSONValueSchema) *apiservercel.DeclType {
	var openAPIType string
	switch s.Type {
	case "", templates.ParameterTypeString, templates.ParameterTypeBase64:
		openAPIType = "string"
	case templates.ParameterTypeInt:
		openAPIType = "integer"
	case templates.ParameterTypeNumber:
		openAPIType = "number"
	case templates.ParameterTypeBool:
		openAPIType = "boolean"
	case templates.ParameterTypeJSON:
		dyn := apiservercel.NewSimpleTypeWithMinSize("dyn", cel.DynType, nil, 1)
		dyn.MaxElements = celconfig.MaxRequestSizeBytes - 2
		return dyn
	default:
		return nil
	}
	schema := &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{openAPIType}, MaxLength: s.MaxLength}}
	if openAPIType == "string" {
		for _, e := range s.Enum {
			schema.Enum = append(schema.Enum, e)
		}
	}
	return common.SchemaDeclType(&openapi.Schema{Schema: schema}, false)
}

// Params are one request's parameters as every expression of the request sees them; made
// once, shared by the expressions' evaluations.
type Params struct {
	activation interpreter.Activation
}

// Values gives the parameters' final values (by parameter index) in their types, keyed as
// params' fields. An empty value of a type other than string and base64 is absent, as is a
// value that is not of its type (its parameter's error is reported elsewhere): has() tells.
func (e *Env) Values(values []string) *Params {
	out := make(map[string]any, len(values))
	for i, v := range values {
		p := &e.params[i]
		name, ok := apiservercel.Escape(p.Name)
		if !ok {
			continue
		}
		if value, ok := typed(p, v); ok {
			out[name] = value
		}
	}
	activation, _ := interpreter.NewActivation(map[string]any{Variable: e.env.CELTypeAdapter().NativeToValue(out)})
	return &Params{activation: activation}
}

// typed converts one value to what CEL holds for its type.
func typed(p *templates.Parameter, v string) (any, bool) {
	switch p.Type {
	case "", templates.ParameterTypeString, templates.ParameterTypeBase64:
		return v, true
	}
	if v == "" {
		return nil, false
	}
	switch p.Type {
	case templates.ParameterTypeInt:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	case templates.ParameterTypeNumber:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	case templates.ParameterTypeBool:
		return v == "true", v == "true" || v == "false"
	case templates.ParameterTypeJSON:
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		var decoded any
		if dec.Decode(&decoded) != nil {
			return nil, false
		}
		switch {
		case p.Items != nil:
			if list, ok := decoded.([]any); ok {
				for i := range list {
					list[i] = jsonValue(list[i], p.Items.Type)
				}
				return list, true
			}
		case len(p.Properties) > 0:
			if members, ok := decoded.(map[string]any); ok {
				declared := sets.New[string]()
				for name, s := range p.Properties {
					declared.Insert(name)
					if m, ok := members[name]; ok {
						members[name] = jsonValue(m, s.Type)
					}
				}
				for name, m := range members {
					if !declared.Has(name) {
						members[name] = jsonValue(m, templates.ParameterTypeJSON)
					}
				}
				return members, true
			}
		}
		return jsonValue(decoded, templates.ParameterTypeJSON), true
	}
	return nil, false
}

// jsonValue converts a decoded JSON value (numbers as json.Number) for CEL: a number is a
// double where t says number, else an int when it is written as one and fits, else a double.
func jsonValue(v any, t templates.ParameterType) any {
	switch v := v.(type) {
	case json.Number:
		if t != templates.ParameterTypeNumber {
			if n, err := v.Int64(); err == nil {
				return n
			}
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = jsonValue(v[i], templates.ParameterTypeJSON)
		}
	case map[string]any:
		for k, m := range v {
			v[k] = jsonValue(m, templates.ParameterTypeJSON)
		}
	}
	return v
}
