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
	"errors"
	"fmt"
	"path"
	"sort"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/positions"
	"stencil.dev/stencil/pkg/process"
)

// RevisionReader reads the content of a stored Template's revision, for templateRef.
type RevisionReader interface {
	// RevisionContent returns the content (canonical JSON) of the TemplateRevision of the
	// Template namespace/name whose hash is hash.
	RevisionContent(ctx context.Context, namespace, name, hash string) ([]byte, error)
}

// Prepared is a render file with its template read and the values of the file and its values
// files merged: what a render and an announcement of parameters share.
type Prepared struct {
	File *RenderFile
	// Template is the template to render.
	Template *templates.Template
	// TemplatePlace says where the template was written, for diagnostics about it; a template
	// file's positions are read only when something is placed in it (templatePositions).
	TemplatePlace Place
	templateFile  *process.TemplateFile
	// TemplateDir is the template file's directory inside the application's (Starlark
	// transformers read their path there, as stencil process --local reads it); "" when the
	// template is not a file.
	TemplateDir string
	// Values are the parameter values of the values files and spec.parameters, in that order
	// of precedence, with $(VAR) expanded; Sources says where each was written.
	Values  map[string]string
	Sources map[string]Place
	// Labels and Properties are spec.labels and spec.properties with $(VAR) expanded.
	Labels, Properties map[string]string
}

// Place is where something was written: a file, its positions, and the field path in it of
// what was written (for a template inside another file, the path of the template).
type Place struct {
	File      string
	Positions *positions.Index
	Path      *field.Path
}

// Prepare reads the render file name of dir, its template and its values files, and merges
// the values. env expands $(VAR); with keepUnset a build variable that is not set stays as
// written instead of failing (an announcement of parameters, which Argo CD asks without the
// destination or the revision).
func Prepare(ctx context.Context, dir *Dir, name string, env Environment, keepUnset bool, revisions RevisionReader) (*Prepared, error) {
	data, err := dir.ReadFile(name, MaxFileBytes)
	if err != nil {
		return nil, &Problems{File: name, Summary: "unable to read the render file", Errors: []error{err}}
	}
	f, err := DecodeRenderFile(name, data)
	if err != nil {
		return nil, err
	}
	p := &Prepared{File: f, Values: map[string]string{}, Sources: map[string]Place{}}
	spec := field.NewPath("spec")
	summary := "unable to render " + f.String()
	expand := func(s string) (string, error) {
		out, err := env.Expand(s)
		if err != nil && keepUnset {
			return s, nil
		}
		return out, err
	}
	var errs field.ErrorList
	expandMap := func(m map[string]string, p *field.Path) map[string]string {
		out := make(map[string]string, len(m))
		for _, k := range sortedKeys(m) {
			v, err := expand(m[k])
			if err != nil {
				errs = append(errs, field.Invalid(p.Key(k), field.OmitValueType{}, err.Error()))
			}
			out[k] = v
		}
		return out
	}
	p.Labels = expandMap(f.Render.Spec.Labels, spec.Child("labels"))
	p.Properties = expandMap(f.Render.Spec.Properties, spec.Child("properties"))
	fileValues := expandMap(f.Render.Spec.Parameters, spec.Child("parameters"))
	if err := problemsOf(f.Name, f.Positions, summary, errs); err != nil {
		return nil, err
	}
	if err := p.readTemplate(ctx, dir, revisions); err != nil {
		return nil, err
	}
	for i, vf := range f.Render.Spec.ValuesFiles {
		if err := p.readValuesFile(dir, vf, spec.Child("valuesFiles").Index(i)); err != nil {
			return nil, err
		}
	}
	for k, v := range fileValues {
		p.Values[k] = v
		p.Sources[k] = Place{File: f.Name, Positions: f.Positions, Path: spec.Child("parameters").Key(k)}
	}
	return p, nil
}

// readTemplate reads the template the render file names.
func (p *Prepared) readTemplate(ctx context.Context, dir *Dir, revisions RevisionReader) error {
	f, spec := p.File, field.NewPath("spec")
	summary := "unable to read the template of " + f.String()
	switch s := f.Render.Spec; {
	case s.TemplateFile != "":
		name := path.Clean(s.TemplateFile)
		data, err := dir.ReadFile(name, MaxFileBytes)
		if err != nil {
			return problemAt(f.Name, f.Positions, summary, spec.Child("templateFile"), err.Error())
		}
		tf, err := process.ReadTemplateFile(name, data, false)
		if err != nil {
			return templateReadProblem(name, data, err)
		}
		p.Template, p.TemplateDir, p.templateFile = tf.Template, path.Dir(name), tf
		p.TemplatePlace = Place{File: name}
	case s.Template != nil:
		p.TemplatePlace = Place{File: f.Name, Positions: f.Positions, Path: spec.Child("template")}
		t, _, err := process.DecodeTemplate(s.Template.Raw)
		var agg utilerrors.Aggregate
		switch {
		case errors.As(err, &agg) && len(agg.Errors()) > 0:
			return ProblemList{p.templateProblems(summary, agg.Errors())}
		case err != nil:
			return problemAt(f.Name, f.Positions, summary, spec.Child("template"), err.Error())
		}
		p.Template = t
	default:
		ref := s.TemplateRef
		at := spec.Child("templateRef")
		if revisions == nil {
			return problemAt(f.Name, f.Positions, summary, at, "a templateRef needs read access to the cluster's TemplateRevisions, which this render was not given")
		}
		content, err := revisions.RevisionContent(ctx, ref.Namespace, ref.Name, ref.Hash)
		if err != nil {
			return problemAt(f.Name, f.Positions, summary, at, err.Error())
		}
		if got := revisionHashOf(content); got != ref.Hash {
			return problemAt(f.Name, f.Positions, summary, at.Child("hash"), fmt.Sprintf("the content the cluster answered hashes to %s: refused", got))
		}
		t, _, err := process.DecodeTemplate(content)
		if err != nil {
			return problemAt(f.Name, f.Positions, summary, at, fmt.Sprintf("Template %s/%s at %s: %v", ref.Namespace, ref.Name, ref.Hash, err))
		}
		t.Name, t.Namespace = ref.Name, ref.Namespace
		p.Template = t
		p.TemplatePlace = Place{File: f.Name, Positions: f.Positions, Path: at}
	}
	return nil
}

// templatePositions locates the fields of the template's file, read on the first call.
func (p *Prepared) templatePositions() *positions.Index {
	if p.TemplatePlace.Positions == nil && p.templateFile != nil {
		return p.templateFile.Positions()
	}
	return p.TemplatePlace.Positions
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
