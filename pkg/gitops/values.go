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

package gitops

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/positions"
)

// readValuesFile merges the values of the values file name, which the render file names at
// at, into p.Values: a YAML or JSON map of parameter names to strings. A json parameter may
// also be given any YAML or JSON value, which it takes as its JSON text (a list of zones
// written as a YAML list); any other parameter takes only a string, as spec.parameters.
func (p *Prepared) readValuesFile(dir *Dir, name string, at *field.Path) error {
	f := p.File
	name = path.Clean(name)
	data, err := dir.ReadFile(name, MaxFileBytes)
	if err != nil {
		return problemAt(f.Name, f.Positions, "unable to read a values file of "+f.String(), at, err.Error())
	}
	summary := "unable to read the values file " + name
	x, err := positions.Read(name, data)
	if err != nil {
		return syntaxProblem(name, summary, err)
	}
	doc := bytes.TrimSpace(x.JSON())
	if len(doc) == 0 || string(doc) == "null" {
		return nil // an empty file gives no values
	}
	var members map[string]json.RawMessage
	if doc[0] != '{' || json.Unmarshal(doc, &members) != nil {
		return problemsOf(name, x, summary, field.ErrorList{field.Invalid(nil, field.OmitValueType{}, "a values file is a map of parameter names to values")})
	}
	types := map[string]templates.ParameterType{}
	for _, param := range p.Template.Parameters {
		types[param.Name] = param.Type
	}
	var errs field.ErrorList
	for _, k := range sortedKeys(members) {
		raw, kp := members[k], field.NewPath(k)
		switch {
		case !parameterName.MatchString(k):
			errs = append(errs, field.Invalid(kp, k, "a parameter name matches ^[A-Za-z_][A-Za-z0-9_]*$"))
			continue
		case raw[0] == '"':
			var s string
			_ = json.Unmarshal(raw, &s)
			p.Values[k] = s
		case types[k] == templates.ParameterTypeJSON:
			compact, err := jsonbytes.Compact(raw)
			if err != nil {
				errs = append(errs, field.Invalid(kp, field.OmitValueType{}, err.Error()))
				continue
			}
			p.Values[k] = string(compact)
		default:
			errs = append(errs, field.Invalid(kp, templates.ShortJSON(raw), `must be a string (quote it: "3", "true"); only a json parameter takes another value`))
			continue
		}
		p.Sources[k] = Place{File: name, Positions: x, Path: kp}
	}
	return problemsOf(name, x, summary, errs)
}

// templateReadProblem places the error of reading the template file name: each field error of
// a list at its field, a YAML syntax error at its line.
func templateReadProblem(name string, data []byte, err error) error {
	summary := "unable to read the template " + name
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) && len(agg.Errors()) > 0 {
		x, _ := positions.Read(name, data) // nil knows no place
		return &Problems{File: name, Positions: x, Summary: summary, Errors: agg.Errors()}
	}
	return syntaxProblem(name, summary, err)
}

// revisionHashOf is a TemplateRevision's hash of content: "sha256:" and its hex SHA-256.
func revisionHashOf(content []byte) string {
	sum := sha256.Sum256(content)
	return "sha256:" + hex.EncodeToString(sum[:])
}
