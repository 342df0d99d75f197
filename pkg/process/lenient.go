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
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// What OpenShift tolerates in its templates, and Stencil tolerates in templates of OpenShift's
// dialect only, each with a warning: the template gets OpenShift's output, and its author
// learns what would be refused in Stencil's dialect. None of it costs a template that does not
// need it: each is found where the strict path would have failed.

// redeclarationWarnings says, for each name an OpenShift template declares more than once,
// which declaration is substituted: the last, as OpenShift's processor keys its parameters by
// name.
func (c *compiler) redeclarationWarnings() {
	params := c.plan.params
	for i := range params {
		if !params[i].redeclared {
			continue
		}
		c.plan.redeclared = true
		name := params[i].Name
		if c.plan.index[name] != i {
			continue // reported once, at the last declaration
		}
		var at []string
		for j := range params {
			if params[j].Name == name {
				at = append(at, fmt.Sprintf("parameters[%d]", j))
			}
		}
		last := &params[i]
		value := fmt.Sprintf("its value %q", last.Value)
		if last.Value == "" && last.generator != nil {
			value = fmt.Sprintf("a value generated from %q", last.From)
		}
		c.warnings.add(fmt.Sprintf("parameter %s is declared %d times (%s): as in OpenShift, the last declaration is the one substituted, with %s",
			name, len(at), strings.Join(at, ", "), value), field.NewPath("parameters").Index(i).String())
	}
}

// droppedValueWarnings warns of the caller's values for a name declared more than once: oc
// sets the first declaration, OpenShift substitutes the last, so the value is not used, and
// Stencil does as OpenShift does.
func (p *Plan) droppedValueWarnings(req *Request) []string {
	var out []string
	for i := range p.params {
		param := &p.params[i]
		if !param.redeclared || p.index[param.Name] != i {
			continue
		}
		if _, given := req.Parameters[param.Name]; !given {
			continue
		}
		first := 0
		for first < i && p.params[first].Name != param.Name {
			first++
		}
		out = append(out, fmt.Sprintf("parameters[%d]: the value given for %s is not used: it sets the first declaration of %s (parameters[%d]), as oc sets it, and OpenShift substitutes the last one",
			i, param.Name, param.Name, first))
	}
	return out
}

// invalidLabel describes the template label k=v that is not a valid label, or returns "".
// OpenShift applies such a label as it is, and the API server refuses the objects that carry
// it; Stencil's dialect refuses the template.
func invalidLabel(k, v string, path *field.Path) string {
	errs := validateLabels(map[string]string{k: v}, path)
	if len(errs) == 0 {
		return ""
	}
	reasons := make([]string, len(errs))
	for i, err := range errs {
		reasons[i] = err.Detail
	}
	return fmt.Sprintf("the label %q: %q is not a valid label (%s); it is applied as OpenShift applies it, and the API server will refuse the objects that carry it",
		k, v, strings.Join(reasons, "; "))
}

// duplicateNameError is the error of compacting an object with a repeated member name.
type duplicateNameError struct{ name []byte }

func (e *duplicateNameError) Error() string { return fmt.Sprintf("duplicate member name %q", e.name) }

// lastMemberWins rewrites the JSON value raw as OpenShift reads it, with encoding/json: a
// member repeated in one object keeps its first place and its last value. It returns each
// repeated member, below base.
func lastMemberWins(raw []byte, base *field.Path) ([]byte, []repeatedMember, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	var repeated []repeatedMember
	out, err := lastMemberWinsValue(dec, nil, base, &repeated)
	if err != nil {
		return nil, nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, nil, errors.New("unexpected data after the object")
	}
	return out, repeated, nil
}

// repeatedMember is a member name repeated in one object, and where.
type repeatedMember struct{ name, path string }

func lastMemberWinsValue(dec *jsontext.Decoder, dst []byte, path *field.Path, repeated *[]repeatedMember) ([]byte, error) {
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		var names []string
		var values [][]byte
		index := map[string]int{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String()
			child := path.Child(name)
			if !isPlainFieldName(name) {
				child = path.Key(name)
			}
			value, err := lastMemberWinsValue(dec, nil, child, repeated)
			if err != nil {
				return nil, err
			}
			if at, ok := index[name]; ok {
				values[at] = value
				*repeated = append(*repeated, repeatedMember{name: name, path: child.String()})
				continue
			}
			index[name] = len(names)
			names, values = append(names, name), append(values, value)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		dst = append(dst, '{')
		for i, name := range names {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonbytes.AppendQuoted(dst, name)
			dst = append(dst, ':')
			dst = append(dst, values[i]...)
		}
		return append(dst, '}'), nil
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		dst = append(dst, '[')
		for i := 0; dec.PeekKind() != ']'; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = lastMemberWinsValue(dec, dst, path.Index(i), repeated); err != nil {
				return nil, err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return append(dst, ']'), nil
	}
	value, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	return append(dst, value...), nil
}

// lastMemberWins compacts the object raw, whose members repeat, as OpenShift reads it, with a
// warning for each repeated member.
func (c *compiler) lastMemberWins(raw []byte, path *field.Path) ([]byte, error) {
	rewritten, repeated, err := lastMemberWins(raw, path)
	if err != nil {
		return nil, err
	}
	for _, r := range repeated {
		c.warnings.add(fmt.Sprintf("the member %q is repeated in its object: as OpenShift reads JSON, its last value is used", r.name), r.path)
	}
	return c.structure.compact(&c.src, rewritten)
}
