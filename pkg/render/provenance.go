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

package render

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/provenance"
	"stencil.dev/stencil/pkg/redact"
	"stencil.dev/stencil/pkg/transform"
)

// ProvenanceOptions ask for the provenance of every leaf field of the output (Output.Provenance).
type ProvenanceOptions struct {
	// Positions locate the template's fields in the file it was read from; nil for none.
	Positions provenance.Locator
	// MaxFields bounds the leaf fields described; 0 means provenance.DefaultMaxFields. An
	// output with more is refused with a problem at "provenance".
	MaxFields int
	// Annotate adds Kustomize's resource annotations (config.kubernetes.io/origin and
	// alpha.config.kubernetes.io/transformations) to each object, for tools that read them.
	// It changes the objects, so it is never the default.
	Annotate bool
	// Source names the template in the annotations when Positions has no file.
	Source string
	// Repo and Ref name the repository and the revision the template was read from, for the
	// origin annotation (Kustomize's repo and ref), when it came from one (a GitOps render).
	Repo, Ref string
}

// Kustomize's annotations of where a resource came from and what transformed it.
const (
	OriginAnnotation          = "config.kubernetes.io/origin"
	TransformationsAnnotation = "alpha.config.kubernetes.io/transformations"
)

// Kinds of the steps of processing that are not transformers.
const (
	customTransformStep = "CustomTransform"
	expansionStep       = "Expansion"
	destinationStep     = "Destination"
	annotationsStep     = "ProvenanceAnnotations"
)

// provenanceFieldBytes is what one leaf field's provenance holds while processing runs (its
// Node, Field, source path, the Map's copy, and the garbage of the steps' diffs): the memory
// charged per field of the bound. Measured: 880 bytes a field at the peak of 100,000
// (TestProvenanceIsBounded).
const provenanceFieldBytes = 1024

// tracing is the provenance of one attempt: it seeds a Tracker from the engine's result and
// is the pipeline's StepTracer.
type tracing struct {
	opts     *ProvenanceOptions
	plan     *process.Plan
	template *templates.Template
	labels   map[string]string
	// fromSecret names the parameters whose values were read from Secrets.
	fromSecret map[string]bool
	result     *process.Result
	tracker    *provenance.Tracker
	// forks is the map of the destinations' objects so far, forkFields their leaf fields, err
	// why a destination's could not be made.
	forks      *provenance.Map
	forkFields int
	err        error
}

func (tr *tracing) max() int { return fieldsBound(tr.opts.MaxFields) }

// fieldsBound is a bound of leaf fields as asked, or provenance.DefaultMaxFields.
func fieldsBound(asked int) int {
	if asked > 0 {
		return asked
	}
	return provenance.DefaultMaxFields
}

// start seeds the tracker from the engine's objects, decoded when steps will run over them,
// else nil: the trace then writes the map's fields itself (process.TraceOptions.Flat).
func (tr *tracing) start(objects []map[string]any) error {
	declared := make(map[string]*templates.Parameter, len(tr.template.Parameters))
	for i := range tr.template.Parameters {
		declared[tr.template.Parameters[i].Name] = &tr.template.Parameters[i]
	}
	secrets := &redact.Set{}
	for _, p := range tr.result.Parameters {
		if d := declared[p.Name]; d != nil && redact.Hidden(d, p.Value, tr.fromSecret[p.Name]) {
			secrets.Add(p.Value)
		}
	}
	mask := func(name string) string {
		if secrets.Holds(name) {
			return redact.Masked
		}
		return name
	}
	seeds, n, err := tr.plan.Trace(tr.template, tr.labels, tr.result, process.TraceOptions{Max: tr.max(), Locator: tr.opts.Positions,
		Flat: objects == nil, Mask: mask})
	if err != nil {
		return err
	}
	tr.tracker = provenance.NewTracker(objects, seeds, n, tr.max())
	tr.tracker.SetSecrets(secrets)
	return tr.tracker.Err()
}

// Before implements transform.StepTracer.
func (tr *tracing) Before(objects []transform.Object) { tr.tracker.Before(objects) }

// After implements transform.StepTracer.
func (tr *tracing) After(s transform.TracedStep, objects []transform.Object) {
	info := provenance.StepInfo{Kind: s.Kind, Name: s.Name, Generator: s.Generator}
	if s.Path != nil && s.Config >= 0 {
		info.Source = &provenance.Source{Kind: provenance.Template, Path: s.Path.String()}
	}
	if s.Config >= 0 {
		generators := len(tr.result.Generators)
		if s.Config < generators {
			info.Parameters = tr.plan.ConfigParameters("generators", s.Config)
		} else {
			info.Parameters = tr.plan.ConfigParameters("transformers", s.Config-generators)
		}
	}
	tr.tracker.After(info, objects)
}

// step records a step of processing that is not a transformer.
func step(t *provenance.Tracker, objects []map[string]any, info provenance.StepInfo, run func()) {
	if t == nil {
		run()
		return
	}
	t.Before(objects)
	run()
	t.After(info, objects)
}

// finish returns the map of the objects, annotating them first when asked.
func (tr *tracing) finish(t *provenance.Tracker, objects []map[string]any) (*provenance.Map, error) {
	m, err := t.Map(objects, tr.opts.Positions)
	if err != nil || !tr.opts.Annotate {
		return m, err
	}
	file := tr.opts.Source
	if tr.opts.Positions != nil && tr.opts.Positions.File() != "" {
		file = tr.opts.Positions.File()
	}
	values := make([][2]string, len(objects))
	for i := range m.Objects {
		if values[i], err = kustomizeAnnotations(m, &m.Objects[i], file, tr.opts.Repo, tr.opts.Ref); err != nil {
			return nil, err
		}
	}
	step(t, objects, provenance.StepInfo{Kind: annotationsStep}, func() {
		for i, obj := range objects {
			setAnnotation(obj, OriginAnnotation, values[i][0])
			if values[i][1] != "" {
				setAnnotation(obj, TransformationsAnnotation, values[i][1])
			}
		}
	})
	return t.Map(objects, tr.opts.Positions)
}

// refusal is the problem of an output provenance may not describe, or the error of Trace.
func (tr *tracing) refusal(err error) (field.ErrorList, error) {
	if errors.Is(err, provenance.ErrTooManyFields) {
		return field.ErrorList{field.Forbidden(field.NewPath("provenance"), fmt.Sprintf(
			"the objects have more than %d leaf fields, the most provenance describes for one request: ask for it on a smaller template, or process without it", tr.max()))}, nil
	}
	return nil, err
}

// kustomizeOrigin is the shape of Kustomize's origin annotation and of each entry of its
// transformations annotation (sigs.k8s.io/kustomize/api/resource.Origin).
type kustomizeOrigin struct {
	Path         string        `json:"path,omitempty"`
	Repo         string        `json:"repo,omitempty"`
	Ref          string        `json:"ref,omitempty"`
	ConfiguredIn string        `json:"configuredIn,omitempty"`
	ConfiguredBy *configuredBy `json:"configuredBy,omitempty"`
}

type configuredBy struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name,omitempty"`
}

// kustomizeAnnotations writes the values of the origin and transformations annotations of o;
// repo and ref, when given, say where file was read.
func kustomizeAnnotations(m *provenance.Map, o *provenance.Object, file, repo, ref string) ([2]string, error) {
	origin := kustomizeOrigin{Path: file, Repo: repo, Ref: ref}
	made := map[int32]bool{}
	if o.Source.Kind == provenance.Step && len(o.Steps) > 0 {
		s := m.Steps[o.Steps[0]]
		origin = kustomizeOrigin{ConfiguredIn: file, Repo: repo, Ref: ref, ConfiguredBy: &configuredBy{APIVersion: transform.BuiltinAPIVersion, Kind: s.Kind, Name: s.Name}}
		made[o.Steps[0]] = true
	}
	var out [2]string
	b, err := yaml.Marshal(origin)
	if err != nil {
		return out, err
	}
	out[0] = string(b)
	touched := map[int32]bool{}
	for _, f := range o.Fields {
		for _, s := range f.Steps {
			touched[s] = true
		}
	}
	var transformations []kustomizeOrigin
	for i, s := range m.Steps {
		if !touched[int32(i)] || made[int32(i)] || s.Kind == annotationsStep {
			continue
		}
		transformations = append(transformations, kustomizeOrigin{ConfiguredIn: file,
			ConfiguredBy: &configuredBy{APIVersion: transform.BuiltinAPIVersion, Kind: s.Kind, Name: s.Name}})
	}
	if len(transformations) > 0 {
		if b, err = yaml.Marshal(transformations); err != nil {
			return out, err
		}
		out[1] = strings.TrimSpace(string(b)) + "\n"
	}
	return out, nil
}

// fork returns a tracker of one destination's copies of the objects; nil without provenance.
func (tr *tracing) fork(objects, copies []map[string]any) *provenance.Tracker {
	if tr == nil || tr.tracker == nil {
		return nil
	}
	return tr.tracker.Fork(objects, copies)
}

// join adds a destination's map to the combined one; its fields count toward the bound of
// the request, whose every destination adds its copies.
func (tr *tracing) join(fork *provenance.Tracker, copies []map[string]any) error {
	if fork == nil {
		return nil
	}
	base := tr.tracker.StepCount()
	if tr.forks == nil {
		tr.forks = &provenance.Map{}
	}
	m, err := tr.finish(fork, copies)
	if err == nil {
		tr.forkFields += fork.Fields()
		if tr.forkFields > tr.max() {
			err = provenance.ErrTooManyFields
		}
	}
	if err != nil {
		tr.err = err
		return nil
	}
	if len(tr.forks.Steps) == 0 {
		tr.forks.Steps = append(tr.forks.Steps, m.Steps[:base]...)
	}
	provenance.Append(tr.forks, m, base)
	return nil
}

// combined is the map of every destination's objects.
func (tr *tracing) combined() (*provenance.Map, error) {
	if tr.err != nil {
		return nil, tr.err
	}
	if tr.forks == nil {
		return &provenance.Map{}, nil
	}
	return tr.forks, nil
}
