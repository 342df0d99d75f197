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

// Package render is the whole of processing after decoding, in the order
// docs/architecture.md gives (the path of one request, step 4): the
// engine (parameters, substitution, object labels), the consolidated transformers, the
// CustomTransforms that bind, and template expansion, once per destination. The server's two
// endpoints and the CLI's --local path all run it, so every path gives the same bytes for the
// same input. It is a pure library, like the engine and the transformers it joins.
package render

import (
	"context"
	"crypto/sha256"
	"encoding/json"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/validation"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/plugin"
	"stencil.dev/stencil/pkg/transform/remove"
)

// Options configure a Renderer; the zero value is a Renderer with the default settings and
// the built-in table of Kubernetes' kinds.
type Options struct {
	// Config holds the settings, taken as they are; zero fields mean their defaults.
	Config
	// KindToResource maps kinds to plural resources for CustomTransforms that name a
	// resource; nil means the built-in table of Kubernetes' kinds.
	KindToResource func(group, kind string) (string, bool)
	// KustomizeBuilder runs the inline Kustomizations' builds where they stop with their
	// request (kustomize.Workers, a server's); nil runs them in the request's goroutine.
	KustomizeBuilder transform.Builder
}

// Renderer processes templates; it caches compiled plans of stored templates and compiled
// transformer pipelines, both bounded in bytes, and is safe for concurrent use.
type Renderer struct {
	kindToResource func(group, kind string) (string, bool)
	// config has every field set (Config.WithDefaults).
	config     Config
	plans      *byteCache
	pipelines  *byteCache
	buildSlots *transform.BuildSlots // nil: the process's shared slots
	observer   CacheObserver
	// stepObserver hears of every transformer run (ObserveSteps); nil: none.
	stepObserver transform.StepObserver
}

// NewRenderer returns a Renderer configured by opts.
func NewRenderer(opts Options) *Renderer {
	config := opts.Config.WithDefaults()
	p := &Renderer{kindToResource: opts.KindToResource, config: config,
		plans: newByteCache(config.PlanCacheBytes), pipelines: newByteCache(config.PipelineCacheBytes)}
	if config.Limits.KustomizeBuilds > 0 || opts.KustomizeBuilder != nil {
		p.buildSlots = transform.NewBuildSlots(config.Limits.KustomizeBuilds).SetBuilder(opts.KustomizeBuilder)
	}
	return p
}

// Input is one processing request.
type Input struct {
	// Template is the template to process.
	Template *templates.Template
	// Stored says the template has a UID and resourceVersion naming its content, so its plan
	// may be cached under them; any other template is compiled for this request only.
	Stored bool
	// Request holds the caller's parameter values and labels.
	Request process.Request
	// Properties are the values of template expansion.
	Properties map[string]string
	// Destinations, when given, repeat expansion per destination.
	Destinations []templates.Destination
	// GetTemplate reads the Templates that transformersFrom imports; nil refuses imports.
	GetTemplate transform.TemplateGetter
	// RemovalRules are the CustomTransforms in force.
	RemovalRules []remove.Rule
	// Plugins are the plugin providers the administrator allows for this request; the zero
	// value runs none.
	Plugins plugin.Policy
	// TemplateLabels asks for the template's own labels, substituted, in the Output, as
	// OpenShift's processedtemplates answers them.
	TemplateLabels bool
	// Provenance, when set, asks for the provenance of every leaf field of the output
	// (Output.Provenance); nil, the default, costs nothing.
	Provenance *ProvenanceOptions
	// Memory, when set, is charged with what processing may hold before it takes it, and
	// processing is tried with growing output limits (see renderWithin); nil processes once,
	// with the request's whole output limit and nothing charged.
	Memory Memory
	// Admit, when set, is called once the Templates that transformersFrom imports are read,
	// before any value of the request is looked at (checked, substituted, or quoted in an
	// error); its error stops processing and is Render's, as it is. The TemplateInstance
	// controller asks there whether everyone whose content shapes the objects may read the
	// values it feeds them.
	Admit func(imported []*templates.Template) error
	// ReleasedOutput says the caller gives the Output back (Output.ReleaseList) once nothing
	// reads its objects any more: the engine then writes them into a pooled List. It is
	// ignored with Provenance, whose trace reads the engine's bytes.
	ReleasedOutput bool
}

// Process processes one template. Problems of the template or the request come back as a
// field.ErrorList, all at once where they are found in one step; an error is a failure of
// processing itself, or ctx's error when the request is done before processing is, or the
// error of in.Memory.
func (p *Renderer) Render(ctx context.Context, in Input) (*Output, field.ErrorList, error) {
	t, configs, imported, errs := consolidate(in.Template, in.GetTemplate, p.config.Limits)
	if len(errs) > 0 {
		return nil, sortErrors(errs), nil
	}
	if in.Admit != nil {
		if err := in.Admit(imported); err != nil {
			return nil, nil, err
		}
	}
	budget := in.Request.MaxOutputBytes
	if budget <= 0 {
		budget = p.config.MaxOutputBytes
	}
	if in.Memory != nil {
		return p.renderWithin(ctx, in, attemptOf{template: t, configs: configs, imported: imported}, budget)
	}
	plan, errs := p.compile(t, in, p.lookupPlan(t, in.Stored, importsKey(imported)))
	if len(errs) > 0 {
		return nil, errs, nil
	}
	a := p.attempt(ctx, in, &attemptOf{template: t, plan: plan, configs: configs, imported: imported, limit: budget})
	// The Output holds nothing of the plan (its objects are the engine's own buffer, its
	// problems strings); a plan of this request alone goes back for the next one.
	plan.Dispose()
	return a.output, a.errs, a.err
}

// compile returns the plan of the consolidated template t, whose imports are named by key,
// or every problem found without one.
func (p *Renderer) compile(t *templates.Template, in Input, look planLookup) (*process.Plan, field.ErrorList) {
	plan, errs := p.plan(t, look)
	if len(errs) > 0 {
		// The request's values and the transformer configs can be checked without a plan:
		// report their problems now too, rather than one kind of problem per try.
		errs = append(errs, process.CheckValues(t, dialectOf(t), in.Request)...)
		return nil, sortErrors(append(errs, p.configProblems(in)...))
	}
	return plan, nil
}

// attemptOf is what one attempt processes.
type attemptOf struct {
	template *templates.Template
	plan     *process.Plan
	configs  []transform.Config
	// imported are the Templates consolidation read, for the Output.
	imported []*templates.Template
	// limit is the output limit of the attempt; tiers, when set (renderWithin), raises it up
	// to largest as the output grows, charging the request's memory, and charges for the
	// objects' trees before they are decoded, which the charge may not have counted.
	limit, largest int
	tiers          *tiers
}

// attemptResult is the outcome of processing.
type attemptResult struct {
	output *Output
	errs   field.ErrorList
	err    error
}

// attempt processes the request with the output limit of a, raised by a.tiers when set.
func (p *Renderer) attempt(ctx context.Context, in Input, a *attemptOf) attemptResult {
	in.Request.MaxOutputBytes = a.limit
	in.Request.Provenance = in.Provenance != nil
	in.Request.PooledList = in.ReleasedOutput && in.Provenance == nil
	if a.tiers != nil {
		in.Request.Grow = a.tiers.growEngine
	}
	result, errs := a.plan.Execute(in.Request)
	if a.tiers != nil && a.tiers.refused != nil {
		// The memory's answer: a 429, or a timeout while the request waited.
		return attemptResult{err: a.tiers.refused}
	}
	if len(errs) > 0 {
		return attemptResult{errs: sortErrors(append(errs, p.configProblems(in)...))}
	}
	after := &afterEngine{kindResource: p.kindToResource, rules: in.RemovalRules, properties: in.Properties, destinations: in.Destinations,
		maxBytes: a.limit, largest: a.largest, tiers: a.tiers, limits: p.config.Limits, buildSlots: p.buildSlots, stepObserver: p.stepObserver}
	if after.pipeline, errs = p.pipeline(in.Plugins, a.configs, result.Generators, result.Transformers); len(errs) > 0 {
		return attemptResult{errs: sortErrors(errs)}
	}
	if err := ctx.Err(); err != nil {
		return attemptResult{err: err}
	}
	if in.Provenance != nil {
		after.tracing = &tracing{opts: in.Provenance, plan: a.plan, template: a.template, labels: in.Request.Labels, result: result,
			fromSecret: in.Request.FromSecret}
	}
	decode := after.decodes(result.Objects)
	if decode && a.tiers != nil {
		if err := a.tiers.decoding(); err != nil {
			return attemptResult{err: err}
		}
	}
	out, err := after.run(ctx, result.Objects, decode)
	if err != nil {
		return attemptResult{err: err}
	}
	warnings := append(result.Warnings, out.warnings...)
	if len(out.invalid) > 0 {
		return attemptResult{output: &Output{Warnings: warnings}, errs: sortErrors(out.invalid)}
	}
	output := &Output{Objects: out.objects, Message: result.Message, Parameters: result.Parameters, Warnings: warnings, Imported: a.imported,
		Provenance: out.provenance, written: result}
	if in.TemplateLabels {
		output.Labels = a.plan.TemplateLabels(result.Parameters)
	}
	return attemptResult{output: output}
}

// configProblems checks the transformer configs of a template given in the request as they
// are written, before substitution; a stored template's were checked when it was written.
func (p *Renderer) configProblems(in Input) field.ErrorList {
	if in.Stored {
		return nil
	}
	return append(kinds().ValidateGenerators(in.Plugins, in.Template), kinds().ValidateTransformers(in.Plugins, in.Template)...)
}

// sortErrors orders problems by field path, as every validation of the API does, and drops
// exact repeats (a check run twice on one config), so that a 422 names each problem once.
func sortErrors(errs field.ErrorList) field.ErrorList {
	type problem struct {
		field, detail string
		kind          field.ErrorType
	}
	seen := make(map[problem]bool, len(errs))
	out := errs[:0]
	for _, e := range validation.SortByField(errs) {
		key := problem{e.Field, e.Detail, e.Type}
		if !seen[key] {
			seen[key] = true
			out = append(out, e)
		}
	}
	return out
}

func dialectOf(t *templates.Template) process.Dialect {
	if t.OpenShift {
		return process.OpenShift
	}
	return process.Stencil
}

// consolidate replaces the template's transformer fields by its consolidated list (imports,
// own transformers, overrides, order), which the engine then substitutes parameters into. It
// also returns the list itself, whose paths say where each config was written, and the
// Templates imported.
func consolidate(t *templates.Template, get transform.TemplateGetter, limits transform.Limits) (*templates.Template, []transform.Config, []*templates.Template, field.ErrorList) {
	if len(t.Transformers) == 0 && len(t.TransformersFrom) == 0 && len(t.TransformerOverrides) == 0 && len(t.TransformerOrder) == 0 {
		return t, nil, nil, nil
	}
	var imported []*templates.Template
	var recordingGet transform.TemplateGetter
	if get != nil {
		recordingGet = func(name string) (*templates.Template, error) {
			t, err := get(name)
			if err == nil {
				imported = append(imported, t)
			}
			return t, err
		}
	}
	configs, errs := transform.ConsolidateWithin(t, recordingGet, limits)
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	consolidated := *t
	consolidated.Transformers = make([]runtime.RawExtension, len(configs))
	for i, c := range configs {
		consolidated.Transformers[i].Raw = c.Raw
	}
	consolidated.TransformersFrom, consolidated.TransformerOverrides, consolidated.TransformerOrder = nil, nil, nil
	return &consolidated, configs, imported, nil
}

// pipeline compiles the generators and the consolidated transformer configs as the engine
// substituted them, or reuses the pipeline of the same substituted configs: most requests
// give them the same parameters.
func (p *Renderer) pipeline(plugins plugin.Policy, configs []transform.Config, generators, substituted []json.RawMessage) (*transform.Pipeline, field.ErrorList) {
	if len(generators) == 0 && len(substituted) == 0 {
		return nil, nil
	}
	h := sha256.New()
	h.Write([]byte(plugins.CacheKey()))
	h.Write([]byte{0})
	size := 0
	for _, c := range generators {
		h.Write(c)
		h.Write([]byte{1})
		size += len(c)
	}
	for _, c := range substituted {
		h.Write(c)
		h.Write([]byte{0})
		size += len(c)
	}
	key := string(h.Sum(nil))
	if cached, ok := p.pipelines.get(key); ok {
		p.cacheLookup(PipelineCache, true)
		return cached.(*transform.Pipeline), nil
	}
	p.cacheLookup(PipelineCache, false)
	list := transform.GeneratorConfigs(generators)
	for i, raw := range substituted {
		c := transform.Config{Raw: raw, Path: field.NewPath("transformers").Index(i)}
		if i < len(configs) && configs[i].Path != nil {
			c.Path = configs[i].Path
		}
		list = append(list, c)
	}
	pipeline, errs := kinds().Compile(plugins, list)
	// A compiled pipeline holds its configs decoded, a few times their bytes.
	if len(errs) == 0 && p.pipelines.add(key, pipeline, int64(4*size+1024)) {
		p.cacheEntries(PipelineCache, p.pipelines)
	}
	return pipeline, errs
}
