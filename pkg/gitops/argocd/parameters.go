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

// Package argocd speaks Argo CD's side of a Config Management Plugin (CMP v2): the parameters
// an Application gives (ARGOCD_APP_PARAMETERS, PARAM_*) read as a template's typed values, and
// the announcements (parameters.dynamic) that Argo CD's Parameters tab is built from.
package argocd

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
)

// The environment variables Argo CD gives a plugin's parameters in.
const (
	// ParametersVariable holds every parameter the Application sets, as JSON.
	ParametersVariable = "ARGOCD_APP_PARAMETERS"
	// ParamPrefix starts the variable of each string parameter: PARAM_<NAME>, the name upper
	// case with every other character than A-Z, 0-9 and _ as _.
	ParamPrefix = "PARAM_"
)

// Parameter is one parameter of an Application's plugin source, as ARGOCD_APP_PARAMETERS
// writes it: a string, an array or a map.
type Parameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Values reads the Application's parameters from the environment (lookup is os.LookupEnv):
// ARGOCD_APP_PARAMETERS when Argo CD set it, else PARAM_<NAME> for each parameter of the
// template (string values only: the variables of arrays and maps cannot be told from names).
// Each is converted to the template parameter's value: a string as it is; an array or a map,
// for a json parameter, as the JSON array or object of its elements typed by the parameter's
// items or properties. Every problem is reported at once, at the parameter's name.
func Values(t *templates.Template, lookup func(string) (string, bool)) (map[string]string, field.ErrorList) {
	if raw, ok := lookup(ParametersVariable); ok && strings.TrimSpace(raw) != "" {
		var params []Parameter
		if err := json.Unmarshal([]byte(raw), &params); err != nil {
			return nil, field.ErrorList{field.Invalid(nil, field.OmitValueType{}, "not a list of Argo CD parameters: "+err.Error())}
		}
		return convert(t, params)
	}
	values := map[string]string{}
	var errs field.ErrorList
	seen := map[string]string{}
	for _, p := range t.Parameters {
		variable := ParamPrefix + escaped(p.Name)
		if other, dup := seen[variable]; dup && other != p.Name {
			errs = append(errs, field.Invalid(field.NewPath(variable), field.OmitValueType{},
				fmt.Sprintf("names both parameters %s and %s: set ARGOCD_APP_PARAMETERS instead", other, p.Name)))
			continue
		}
		seen[variable] = p.Name
		if v, ok := lookup(variable); ok {
			values[p.Name] = v
		}
	}
	return values, errs
}

// escaped is Argo CD's spelling of a parameter's name in PARAM_ variables.
func escaped(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, name)
}

// convert turns the Application's parameters into the template's values.
func convert(t *templates.Template, params []Parameter) (map[string]string, field.ErrorList) {
	declared := map[string]*templates.Parameter{}
	for i := range t.Parameters {
		declared[t.Parameters[i].Name] = &t.Parameters[i]
	}
	values := map[string]string{}
	var errs field.ErrorList
	for _, p := range params {
		at := field.NewPath(p.Name)
		set := 0
		for _, given := range []bool{p.String != nil, p.Array != nil, p.Map != nil} {
			if given {
				set++
			}
		}
		if set > 1 {
			errs = append(errs, field.Invalid(at, field.OmitValueType{}, "give one of string, array and map"))
			continue
		}
		decl := declared[p.Name]
		switch {
		case p.Array != nil:
			v, err := arrayValue(decl, p.Array)
			if err != nil {
				errs = append(errs, field.Invalid(at, field.OmitValueType{}, err.Error()))
				continue
			}
			values[p.Name] = v
		case p.Map != nil:
			v, err := mapValue(decl, p.Map)
			if err != nil {
				errs = append(errs, field.Invalid(at, field.OmitValueType{}, err.Error()))
				continue
			}
			values[p.Name] = v
		case p.String != nil:
			values[p.Name] = *p.String
		default:
			values[p.Name] = ""
		}
	}
	return values, errs
}

// arrayValue is the JSON array of an Application's array parameter, each element of the
// parameter's items type.
func arrayValue(p *templates.Parameter, items []string) (string, error) {
	if p == nil || p.Type != templates.ParameterTypeJSON || p.Properties != nil {
		return "", fmt.Errorf("an array is given, but the parameter is %s: give a string", describe(p))
	}
	var itemType templates.ParameterType
	if p.Items != nil {
		itemType = p.Items.Type
	}
	out := []byte{'['}
	for i, item := range items {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendTyped(out, itemType, item); err != nil {
			return "", fmt.Errorf("element %d: %v", i, err)
		}
	}
	return string(append(out, ']')), nil
}

// mapValue is the JSON object of an Application's map parameter, each member of the type its
// property declares (a string when it declares none).
func mapValue(p *templates.Parameter, members map[string]string) (string, error) {
	if p == nil || p.Type != templates.ParameterTypeJSON || p.Items != nil {
		return "", fmt.Errorf("a map is given, but the parameter is %s: give a string", describe(p))
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonbytes.AppendQuoted(out, k)
		out = append(out, ':')
		var err error
		if out, err = appendTyped(out, p.Properties[k].Type, members[k]); err != nil {
			return "", fmt.Errorf("member %s: %v", k, err)
		}
	}
	return string(append(out, '}')), nil
}

// appendTyped appends the JSON value of s as an element of type t: a string as a JSON
// string, any other type as the JSON it spells, checked to be one.
func appendTyped(out []byte, t templates.ParameterType, s string) ([]byte, error) {
	switch t {
	case "", templates.ParameterTypeString, templates.ParameterTypeBase64:
		return jsonbytes.AppendQuoted(out, s), nil
	}
	compact, err := jsonbytes.Compact([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("%q is not a JSON %s", s, t)
	}
	return append(out, compact...), nil
}

func describe(p *templates.Parameter) string {
	switch {
	case p == nil:
		return "not declared by the template"
	case p.Type == "":
		return "of type string"
	case p.Type == templates.ParameterTypeJSON && p.Items != nil:
		return "a json array"
	case p.Type == templates.ParameterTypeJSON && p.Properties != nil:
		return "a json object"
	}
	return "of type " + string(p.Type)
}
