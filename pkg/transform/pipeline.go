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

package transform

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Config is one transformer config of a consolidated list.
type Config struct {
	// APIVersion, Kind and Name are the config's apiVersion, kind and metadata.name, for
	// display and matching. Compile reads them again from Raw, which the engine may have
	// changed by substituting parameters.
	APIVersion string
	Kind       string
	Name       string
	// Raw is the config as JSON, with apiVersion and metadata.name defaulted.
	Raw json.RawMessage
	// Path is where the config was written, for error messages: "transformers[2]" in the
	// Template itself, "transformersFrom[0].transformers[1]" in an imported one.
	Path *field.Path
	// Generator says the config is one of the Template's generators, which run before every
	// transformer (see GeneratorConfigs).
	Generator bool
}

// Pipeline is a compiled transformer list. It holds no state between runs, so one Pipeline
// may run concurrently and be cached as long as its configs do not change.
type Pipeline struct {
	steps []step
	// hashNames is the Registry's pass that gives generated objects their name suffix.
	hashNames func(ctx *Context, objects []Object) error
}

// accountsOutput names the built-ins that spend what they add from the budget as they go
// (or only remove), so that measuring every object again after them would find what the
// budget already knows; on 1,600 objects that measuring took a fifth of a CLI run.
var accountsOutput = map[string]bool{
	"LabelTransformer": true, "AnnotationsTransformer": true, "PrefixSuffixTransformer": true,
	"ImageTagTransformer": true, "PatchTransformer": true, "RemoveTransformer": true, "CleanupTransformer": true,
}

type step struct {
	name, kind string
	t          Transformer
	// generator and path say where a generator's config was written.
	generator bool
	path      *field.Path
	// config is the step's place in the list of configs Compile was given, and configPath
	// where it was written (for a StepTracer).
	config     int
	configPath *field.Path
}

// Error is a generator or transformer failing on the objects it was given: a problem of the
// template or its parameters, not of the server.
type Error struct {
	// Name and Kind identify the transformer.
	Name, Kind string
	// Generator says the step is one of the Template's generators; Path then says which.
	Generator bool
	Path      *field.Path
	// Err is what went wrong.
	Err error
}

// Error names the generator or transformer, then says what went wrong.
func (e *Error) Error() string {
	return fmt.Sprintf("%s %q (%s): %v", stepNoun(e.Generator), e.Name, e.Kind, e.Err)
}

// Unwrap returns Err, so that errors.Is and errors.As see through the transformer.
func (e *Error) Unwrap() error { return e.Err }

// Header is what Compile reads of a config before choosing the factory.
type Header struct {
	// APIVersion and Kind are the config's; Metadata.Name its name in the list.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	// Provider is only looked at for being there; the plugin's factory reads it strictly.
	Provider json.RawMessage `json:"provider"`
}

// Compile builds the pipeline of a consolidated, parameter-substituted transformer list (and
// generator list, see GeneratorConfigs) from the kinds of r, reporting every problem at once.
// A config that a plugin runs is compiled by plugins (a namespace's policy); nil plugins
// refuse every such config.
func (r *Registry) Compile(plugins Plugins, configs []Config) (*Pipeline, field.ErrorList) {
	var errs field.ErrorList
	pipeline := &Pipeline{hashNames: r.hashNames}
	names := map[string]bool{}
	for i, c := range configs {
		path := c.Path
		if path == nil {
			path = field.NewPath("transformers").Index(i)
		}
		h, factory, ferrs := r.factory(plugins, c.Raw, path, c.Generator)
		if factory == nil {
			errs = append(errs, ferrs...)
			continue
		}
		if c.Generator {
			t, terrs := factory(c.Raw, path)
			errs = append(errs, terrs...)
			// A generator is named by what it makes; two may make the same name (merge).
			pipeline.steps = append(pipeline.steps, step{name: generatedName(c.Raw, h), kind: h.Kind, t: t, generator: true, path: path, config: i, configPath: path})
			continue
		}
		name := h.Metadata.Name
		if name == "" {
			name = defaultName(h.Kind)
		}
		if names[name] {
			errs = append(errs, field.Duplicate(path.Child("metadata", "name"), name))
		}
		names[name] = true
		t, terrs := factory(c.Raw, path)
		errs = append(errs, terrs...)
		pipeline.steps = append(pipeline.steps, step{name: name, kind: h.Kind, t: t, config: i, configPath: path})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return pipeline, nil
}

// factory reads a config's header and returns the factory that builds its step: a built-in
// transformer or generator or the Kustomization of r, or a plugin of plugins; or every reason
// there is none.
func (r *Registry) factory(plugins Plugins, raw []byte, path *field.Path, generator bool) (Header, Factory, field.ErrorList) {
	var h Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return h, nil, field.ErrorList{field.Invalid(path, "", "malformed "+stepNoun(generator)+" config: "+err.Error())}
	}
	if h.Kind == "" {
		return h, nil, field.ErrorList{field.Required(path.Child("kind"), "")}
	}
	if IsPluginConfig(h) {
		f, errs := pluginFactory(plugins, h, path, generator)
		return h, f, errs
	}
	if generator {
		f, why := r.generatorFactory(h.APIVersion, h.Kind)
		if f == nil {
			return h, nil, field.ErrorList{r.generatorKindError(path, h.APIVersion, h.Kind, why)}
		}
		return h, f, nil
	}
	f, why := r.Factory(h.APIVersion, h.Kind)
	if f == nil {
		return h, nil, field.ErrorList{r.kindError(path, h.APIVersion, h.Kind, why)}
	}
	return h, f, nil
}

// kindError reports an unusable apiVersion or kind.
func (r *Registry) kindError(path *field.Path, apiVersion, kind, why string) *field.Error {
	if kind == "" {
		return field.Required(path.Child("kind"), "")
	}
	if apiVersion != "" && apiVersion != BuiltinAPIVersion && apiVersion != KustomizationAPIVersion {
		return field.Invalid(path.Child("apiVersion"), apiVersion, why)
	}
	if apiVersion == KustomizationAPIVersion {
		return field.Invalid(path.Child("kind"), kind, why)
	}
	kinds := r.transformerKinds()
	if r.kustomization != nil {
		kinds = append(kinds, "Kustomization ("+KustomizationAPIVersion+")")
	}
	return field.NotSupported(path.Child("kind"), kind, kinds)
}

// Transform runs every transformer in order over decoded objects. The engine uses it to run
// further steps (CustomTransforms, template expansion) on the same tree before encoding once.
//
// Each step's output is measured against ctx's budget before the next step runs, so the
// transformer that made the objects too large is the one named; the request's end stops the
// pipeline between steps, and inside the steps that go through every object.
func (p *Pipeline) Transform(ctx *Context, objects []Object) ([]Object, error) {
	observe := ctx.stepObserver()
	if len(p.steps) > 0 && ctx.maxBytes > 0 && !ctx.sized {
		// The engine held its output to the same budget, so this only sets the starting size;
		// objects already past it fail in the first step that adds to them.
		_ = ctx.measure(objects)
	}
	for _, s := range p.steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := len(ctx.warnings)
		marks := ctx.hashMarksOf(objects)
		if ctx.tracer != nil {
			ctx.tracer.Before(objects)
		}
		start := time.Now()
		out, err := s.run(ctx, objects)
		observe(s.kind, time.Since(start))
		for i := n; i < len(ctx.warnings); i++ {
			ctx.warnings[i] = fmt.Sprintf("%s %q: %s", stepNoun(s.generator), s.name, ctx.warnings[i])
		}
		ctx.carryHashMarks(marks, out)
		if err == nil && ctx.maxBytes > 0 && !accountsOutput[s.kind] {
			err = ctx.measure(out)
		}
		if err != nil {
			// A request that ended, or whose memory refused to grow, is not the transformer's
			// fault, whatever it returned.
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			if memErr := ctx.MemoryErr(); memErr != nil {
				return nil, memErr
			}
			return nil, &Error{Name: s.name, Kind: s.kind, Generator: s.generator, Path: s.path, Err: err}
		}
		if ctx.tracer != nil {
			ctx.tracer.After(TracedStep{Kind: s.kind, Name: s.name, Generator: s.generator, Path: s.configPath, Config: s.config}, out)
		}
		objects = out
	}
	if p.hashNames == nil {
		return objects, nil
	}
	// Only generated objects get a suffix: without one, the pass changes nothing to trace.
	traced := ctx.tracer != nil && ctx.HasHashMarks()
	if traced {
		ctx.tracer.Before(objects)
	}
	if err := p.hashNames(ctx, objects); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, &Error{Name: "name-suffix-hash", Kind: "ConfigMapGenerator", Generator: true, Path: field.NewPath("generators"), Err: err}
	}
	if traced {
		ctx.tracer.After(TracedStep{Kind: NameHashStep, Name: "name-suffix-hash", Generator: true, Path: field.NewPath("generators"), Config: -1}, objects)
	}
	return objects, nil
}

// generatedName is the name a generator config gives its object, for messages.
func generatedName(raw []byte, h Header) string {
	var c struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(raw, &c)
	if c.Name != "" {
		return c.Name
	}
	return h.Metadata.Name
}

// run runs one transformer; a panic (a bug, or a library meeting input it does not expect)
// becomes an error of that transformer instead of taking the server down.
func (s *step) run(ctx *Context, objects []Object) (out []Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return s.t.Transform(ctx, objects)
}
