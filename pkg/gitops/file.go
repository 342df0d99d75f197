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
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/positions"
)

// FileName is the name of a render file: the Argo CD plugin discovers an application by it,
// and stencil render reads it when no file is named.
const FileName = "stencil-render.yaml"

// Kind is the kind of a render file.
const Kind = "TemplateRender"

// RenderFile is a TemplateRender read from a file, and where each of its fields was written.
type RenderFile struct {
	Render *v1alpha1.TemplateRender
	// Name names the file in diagnostics.
	Name string
	// Positions locates the file's fields.
	Positions *positions.Index
}

// LineError is a problem placed at a line of a file but at no field: a YAML syntax error,
// whose reader says no more than the line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return e.Err.Error() }

// yamlLine finds the line of a YAML syntax error.
var yamlLine = regexp.MustCompile(`yaml: line (\d+): `)

// syntaxProblem places a file's syntax error at its line when the reader said which.
func syntaxProblem(name, summary string, err error) error {
	var e error = err
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil {
			e = &LineError{Line: line, Err: err}
		}
	}
	return &Problems{File: name, Summary: summary, Errors: []error{e}}
}

// DecodeRenderFile reads a render file (YAML or JSON) named name: every member it does not
// know, every value of the wrong type and every rule of Validate it breaks, at once, each at
// its field path.
func DecodeRenderFile(name string, data []byte) (*RenderFile, error) {
	summary := "unable to read the render file " + name
	x, err := positions.Read(name, data)
	if err != nil {
		return nil, syntaxProblem(name, summary, err)
	}
	doc := x.JSON()
	if typeErrs := templates.JSONTypeErrors(doc, reflect.TypeOf(v1alpha1.TemplateRender{}), nil); len(typeErrs) > 0 {
		return nil, problemsOf(name, x, summary, typeErrs)
	}
	r := &v1alpha1.TemplateRender{}
	strict, err := kjson.UnmarshalStrict(doc, r)
	if err != nil {
		return nil, problemsOf(name, x, summary, field.ErrorList{field.Invalid(nil, field.OmitValueType{}, err.Error())})
	}
	var errs field.ErrorList
	for _, s := range strict {
		var fe kjson.FieldError
		if errors.As(s, &fe) {
			errs = append(errs, field.Forbidden(pathOf(fe.FieldPath()), "unknown field: a TemplateRender has no such member"))
			continue
		}
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, s.Error()))
	}
	errs = append(errs, Validate(r)...)
	if err := problemsOf(name, x, summary, errs); err != nil {
		return nil, err
	}
	return &RenderFile{Render: r, Name: name, Positions: x}, nil
}

// pathOf is a dotted field path (spec.parameters.A) as a *field.Path.
func pathOf(dotted string) *field.Path {
	p, err := positions.ParsePath(dotted)
	if err != nil || len(p) == 0 {
		return field.NewPath(dotted)
	}
	var out *field.Path
	for _, s := range p {
		switch {
		case s.IsIndex && out != nil:
			out = out.Index(s.Index)
		case out == nil:
			out = field.NewPath(s.Key)
		default:
			out = out.Child(s.Key)
		}
	}
	return out
}

// String names the render in messages: its name, or its file.
func (f *RenderFile) String() string {
	if f.Render.Name != "" {
		return fmt.Sprintf("TemplateRender %q", f.Render.Name)
	}
	return f.Name
}
