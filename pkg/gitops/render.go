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
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// DefaultMaxObjects bounds the objects of one render: more than any application Argo CD
// syncs well, and refused with an error rather than handed to a tool that would hold them all.
const DefaultMaxObjects = 10000

// Options are what a render takes besides its files.
type Options struct {
	// Environment holds the build variables: $(VAR) of the render file, the repository and
	// revision of provenance, the application that generated values are derived for.
	Environment Environment
	// Parameters are the GitOps tool's values (Argo CD's parameters), which win over the
	// file's; ParametersFrom names where they came from in diagnostics.
	Parameters     map[string]string
	ParametersFrom string
	// Seed returns the secret generated values are derived from; nil, or its error, refuses
	// a render that must generate a value.
	Seed func() (Seed, error)
	// Config holds the processing settings (the server's defaults, as stencil process --local).
	Config render.Config
	// Plugins are the plugin providers allowed; LocalDir is set to the template's directory.
	Plugins plugin.Policy
	// MaxObjects bounds the objects of the render; 0 means DefaultMaxObjects.
	MaxObjects int
}

// Output is a render's result.
type Output struct {
	// Objects are the rendered objects, each annotated with Digest.
	Objects []json.RawMessage
	// Digest is the render digest (Digest of the objects before the annotation).
	Digest string
	// Warnings are problems that did not stop the render, as Problems of their files.
	Warnings []*Problems
}

// ProblemList is the problems of a render that failed, file by file.
type ProblemList []*Problems

func (l ProblemList) Error() string {
	s := ""
	for i, p := range l {
		if i > 0 {
			s += "\n"
		}
		s += p.Error()
	}
	return s
}

// Render renders the prepared render file, reading only what it names in dir.
func (p *Prepared) Render(ctx context.Context, opts Options) (*Output, error) {
	spec := p.File.Render.Spec
	values, sources := p.mergeValues(opts)
	summary := "unable to render " + p.File.String()
	if err := p.generate(values, opts, summary); err != nil {
		return nil, err
	}
	plugins := opts.Plugins
	plugins.Exec = nil // an application's repository never names a program to run
	plugins.LocalDir = ""
	if p.TemplateDir != "" && opts.Plugins.LocalDir != "" {
		plugins.LocalDir = filepath.Join(opts.Plugins.LocalDir, filepath.FromSlash(p.TemplateDir))
	}
	var trace *render.ProvenanceOptions
	if spec.ProvenanceAnnotations {
		trace = &render.ProvenanceOptions{Annotate: true, Source: p.TemplatePlace.File,
			Repo: opts.Environment["ARGOCD_APP_SOURCE_REPO_URL"], Ref: opts.Environment["ARGOCD_APP_REVISION"]}
		if x := p.templatePositions(); p.TemplatePlace.Path == nil && x != nil {
			trace.Positions = x
		}
	}
	out, errs, err := render.NewRenderer(render.Options{Config: opts.Config}).Render(ctx, render.Input{
		Template:   p.Template,
		Request:    process.Request{Parameters: values, Labels: p.Labels, IgnoreUnknownParameters: spec.IgnoreUnknownParameters},
		Properties: p.Properties,
		Plugins:    plugins,
		Provenance: trace,
	})
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, p.placeErrors(summary, errs, sources)
	}
	result := &Output{}
	for _, w := range out.Warnings {
		result.Warnings = append(result.Warnings, p.templateProblems("", []error{fmt.Errorf("%s", w)}))
	}
	at := field.NewPath("spec")
	switch limit := max(opts.MaxObjects, 0); {
	case len(out.Objects) == 0 && !spec.AllowEmpty:
		return nil, ProblemList{problemAt(p.File.Name, p.File.Positions, summary, at, "the template rendered no objects: a GitOps tool would prune every object of the application. If that is what you mean, set spec.allowEmpty: true").(*Problems)}
	case limit == 0 && len(out.Objects) > DefaultMaxObjects, limit > 0 && len(out.Objects) > limit:
		if limit == 0 {
			limit = DefaultMaxObjects
		}
		return nil, ProblemList{problemAt(p.File.Name, p.File.Positions, summary, at, fmt.Sprintf("the template rendered %d objects, more than the %d a render may hand to a GitOps tool", len(out.Objects), limit)).(*Problems)}
	}
	result.Digest = Digest(out.Objects)
	if result.Objects, err = annotateAll(out.Objects, v1alpha1.AnnotationRenderDigest, result.Digest); err != nil {
		return nil, ProblemList{p.templateProblems(summary, []error{err})}
	}
	return result, nil
}

// mergeValues returns the values of the render: the file's, the tool's over them.
func (p *Prepared) mergeValues(opts Options) (map[string]string, map[string]Place) {
	values := make(map[string]string, len(p.Values)+len(opts.Parameters))
	sources := make(map[string]Place, len(p.Sources)+len(opts.Parameters))
	for k, v := range p.Values {
		values[k], sources[k] = v, p.Sources[k]
	}
	for k, v := range opts.Parameters {
		values[k] = v
		sources[k] = Place{File: opts.ParametersFrom, Path: field.NewPath(k)}
	}
	return values, sources
}

// generate fills in, for every parameter the engine would generate (no value, no default,
// a generator), the value derived from the seed; without a seed it refuses, at the
// parameter, saying how to proceed.
func (p *Prepared) generate(values map[string]string, opts Options, summary string) error {
	context := []string{p.File.Render.Name, opts.Environment["ARGOCD_APP_NAME"], opts.Environment["ARGOCD_APP_NAMESPACE"]}
	var errs []error
	var seed Seed
	var seedErr error
	seedRead := false
	for i, param := range p.Template.Parameters {
		if param.Generate == "" || values[param.Name] != "" || param.Value != "" {
			continue
		}
		if !seedRead {
			seedRead = true
			if opts.Seed == nil {
				seedErr = fmt.Errorf("no seed was given")
			} else {
				seed, seedErr = opts.Seed()
			}
		}
		declared := field.NewPath("parameters").Index(i)
		at := declared.Child("generate")
		if seedErr != nil {
			errs = append(errs, field.Invalid(at, param.Generate, fmt.Sprintf(
				"parameter %s is generated, and a GitOps render must render the same value every time: give it a value "+
					"(the render file, a values file, or the application's parameters), or install a generate seed "+
					"(docs/gitops.md, Generated values): %v", param.Name, seedErr)))
			continue
		}
		v, err := derivedValue(seed, context, param.Name, param.From)
		if err != nil {
			errs = append(errs, field.Invalid(declared.Child("from"), param.From, err.Error()))
			continue
		}
		values[param.Name] = v
	}
	if len(errs) > 0 {
		return ProblemList{p.templateProblems(summary, errs)}
	}
	return nil
}

// templateProblems are errs, field errors at paths of the template, as problems of the file
// the template was written in (a template inside the render file: under its path there).
func (p *Prepared) templateProblems(summary string, errs []error) *Problems {
	place := p.TemplatePlace
	if place.Path == nil {
		return &Problems{File: place.File, Positions: p.templatePositions(), Summary: summary, Errors: errs}
	}
	out := make([]error, len(errs))
	for i, err := range errs {
		if fe, ok := err.(*field.Error); ok && place.Path.String() == "spec.template" {
			moved := *fe
			moved.Field = place.Path.String() + "." + fe.Field
			out[i] = &moved
			continue
		}
		out[i] = field.Invalid(place.Path, field.OmitValueType{}, err.Error())
	}
	return &Problems{File: place.File, Positions: place.Positions, Summary: summary, Errors: out}
}

// placeErrors sorts the problems of processing by the file they are about: a problem of a
// parameter's value goes where the value was written (a values file, the render file, the
// tool's parameters), every other one to the template.
func (p *Prepared) placeErrors(summary string, errs field.ErrorList, sources map[string]Place) error {
	byName := map[string]string{}
	for i, param := range p.Template.Parameters {
		byName[field.NewPath("parameters").Index(i).String()] = param.Name
		byName[field.NewPath("parameters").Key(param.Name).String()] = param.Name
	}
	var list ProblemList
	files := map[string]*Problems{}
	var templateErrs []error
	for _, err := range errs {
		name, isValue := byName[err.Field]
		if !isValue {
			name, isValue = unknownParameter(err.Field)
		}
		place, given := sources[name]
		if !isValue || !given {
			templateErrs = append(templateErrs, err)
			continue
		}
		key := place.File
		if files[key] == nil {
			files[key] = &Problems{File: place.File, Positions: place.Positions, Summary: summary}
			list = append(list, files[key])
		}
		moved := *err
		moved.Field = place.Path.String()
		files[key].Errors = append(files[key].Errors, &moved)
	}
	if len(templateErrs) > 0 {
		list = append(list, p.templateProblems(summary, templateErrs))
	}
	return list
}

// unknownParameter returns NAME of a field path parameters[NAME], the engine's path of a value
// given for a parameter the template does not declare.
func unknownParameter(fieldPath string) (string, bool) {
	const prefix = "parameters["
	if len(fieldPath) > len(prefix)+1 && fieldPath[:len(prefix)] == prefix && fieldPath[len(fieldPath)-1] == ']' {
		name := fieldPath[len(prefix) : len(fieldPath)-1]
		return name, parameterName.MatchString(name)
	}
	return "", false
}
