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
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/jsonbytes"
	"stencil.dev/stencil/pkg/provenance"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/expand"
	"stencil.dev/stencil/pkg/transform/remove"
)

// DestinationAnnotation names, on each object of a per-destination answer, its destination.
const DestinationAnnotation = "templates.stencil.dev/destination"

// afterEngine is what runs on the engine's objects: the template's transformers, then the
// CustomTransforms that bind, then template expansion, once per destination.
type afterEngine struct {
	pipeline     *transform.Pipeline
	rules        []remove.Rule
	kindResource func(group, kind string) (string, bool)
	properties   map[string]string
	destinations []templates.Destination
	// maxBytes is the request's output budget, which the transformers' output is held to as
	// the engine's was; tiers, when set, raises it up to largest, charging the request's
	// memory, as it raised the engine's.
	maxBytes, largest int
	tiers             *tiers
	// limits are the server's processing limits, for the transformers and expansion, every
	// field set (the Renderer's Config after WithDefaults).
	limits transform.Limits
	// buildSlots are the Renderer's Kustomization build slots; nil for the process's own.
	buildSlots *transform.BuildSlots
	// stepObserver is the Renderer's (ObserveSteps); nil: none.
	stepObserver transform.StepObserver
	// tracing, when provenance is asked, records what each step did.
	tracing *tracing
}

// outcome is the result of the steps after the engine.
type outcome struct {
	objects  []json.RawMessage
	warnings []string
	// invalid are the template's or the request's problems, for a 422.
	invalid field.ErrorList
	// provenance is the objects', when asked.
	provenance *provenance.Map
}

// decodes reports whether run decodes the objects into trees: when a step runs over them.
// Provenance alone does not: the trace reads the engine's bytes.
func (a *afterEngine) decodes(objects []json.RawMessage) bool {
	return a.pipeline != nil || len(a.rules) > 0 || len(a.destinations) > 0 || mentionsExpansion(objects) ||
		(a.tracing != nil && a.tracing.opts.Annotate)
}

// run decodes the objects only when a step needs them (decode, what decodes said of them), and
// then once for all steps. An error is the server's problem; the caller's problems are in
// outcome.invalid.
func (a *afterEngine) run(request context.Context, objects []json.RawMessage, decode bool) (outcome, error) {
	if !decode {
		out := outcome{objects: objects}
		if a.tracing == nil {
			return out, nil
		}
		// No step runs: the provenance is the trace's alone, of the engine's bytes.
		if err := a.tracing.start(nil); err != nil {
			out.invalid, err = a.tracing.refusal(err)
			return out, err
		}
		var err error
		if out.provenance, err = a.tracing.finish(a.tracing.tracker, nil); err != nil {
			out.invalid, err = a.tracing.refusal(err)
			return out, err
		}
		provenance.Compact(out.provenance)
		return out, nil
	}
	decoded, err := jsonbytes.DecodeObjects(objects)
	if err != nil {
		return outcome{}, err
	}
	ctx := transform.NewContext(request, a.maxBytes).SetLimits(a.limits).SetBuildSlots(a.buildSlots).SetStepObserver(a.stepObserver)
	if a.tiers != nil {
		ctx.SetGrow(a.largest, a.tiers.grow)
	}
	if size, known := jsonbytes.DecodedSize(objects); known {
		ctx.SetEncodedSize(size)
	}
	var tracker *provenance.Tracker
	if a.tracing != nil {
		if err := a.tracing.start(decoded); err != nil {
			invalid, err := a.tracing.refusal(err)
			return outcome{invalid: invalid}, err
		}
		tracker = a.tracing.tracker
		ctx.SetStepTracer(a.tracing)
	}
	if a.pipeline != nil {
		if decoded, err = a.pipeline.Transform(ctx, decoded); err != nil {
			if refused := ctx.MemoryErr(); refused != nil {
				// The memory's answer, as it is: a 429, or a timeout while the request waited.
				return outcome{}, refused
			}
			var te *transform.Error
			if !errors.As(err, &te) {
				return outcome{}, fmt.Errorf("running transformers: %w", err)
			}
			path := field.NewPath("transformers").Key(te.Name)
			if te.Generator {
				path = te.Path
			}
			return outcome{warnings: ctx.Warnings(), invalid: field.ErrorList{field.Invalid(path, te.Kind, te.Err.Error())}}, nil
		}
	}
	switch {
	case len(a.rules) == 0:
	case tracker == nil:
		remove.ApplyRules(decoded, a.rules, a.kindResource)
	default:
		// One step per CustomTransform, in the order they apply: a field one removed names it.
		for _, rule := range remove.InOrder(a.rules) {
			step(tracker, decoded, provenance.StepInfo{Kind: customTransformStep, Name: rule.Name}, func() {
				remove.ApplyRules(decoded, []remove.Rule{rule}, a.kindResource)
			})
		}
	}
	result := outcome{warnings: ctx.Warnings()}
	if len(a.destinations) == 0 {
		expansion := tracker
		if !asksExpansion(decoded) {
			// Nothing to expand: nothing to trace.
			expansion = nil
		}
		step(expansion, decoded, provenance.StepInfo{Kind: expansionStep}, func() {
			result.invalid = expand.Templates(decoded, a.properties, a.expansionLimits(1))
		})
		if len(result.invalid) > 0 {
			return result, nil
		}
		if tracker != nil {
			if result.provenance, err = a.tracing.finish(tracker, decoded); err != nil {
				result.invalid, err = a.tracing.refusal(err)
				return result, err
			}
			provenance.Compact(result.provenance)
		}
		result.objects, err = jsonbytes.EncodeObjects(decoded)
		return result, err
	}
	result.objects, result.invalid, err = a.perDestination(ctx, decoded)
	if err == nil && len(result.invalid) == 0 && tracker != nil {
		result.provenance, err = a.tracing.combined()
		if err != nil {
			result.invalid, err = a.tracing.refusal(err)
		} else {
			provenance.Compact(result.provenance)
		}
	}
	return result, err
}

// expansionLimits shares the request's expansion budget among n runs. Each run keeps a floor
// (64 KiB of output, 1 Mi of work, or the whole budget when that is smaller) so that many
// destinations still expand small templates; so n runs may take up to n floors together.
func (a *afterEngine) expansionLimits(n int) expand.Limits {
	output, work := a.limits.ExpansionOutputBytes, a.limits.ExpansionWork
	return expand.Limits{MaxOutputBytes: max(output/n, min(64<<10, output)), MaxWork: max(work/n, min(1<<20, work))}
}

// perDestination expands a fresh copy of the objects for each destination and annotates it;
// the copies together are held to the request's output budget, raised as the engine's is.
func (a *afterEngine) perDestination(ctx *transform.Context, objects []transform.Object) ([]json.RawMessage, field.ErrorList, error) {
	var out []json.RawMessage
	var errs field.ErrorList
	// The destinations share the expansion budget of one request, and their output together
	// is bounded as the engine's is.
	limits := a.expansionLimits(len(a.destinations))
	total := 0
	for i, d := range a.destinations {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		copies := jsonbytes.CopyObjects(objects)
		properties := map[string]string{"clusterName": d.Name}
		for k, v := range a.properties {
			properties[k] = v
		}
		for k, v := range d.Properties {
			properties[k] = v
		}
		fork := a.tracing.fork(objects, copies)
		step(fork, copies, provenance.StepInfo{Kind: destinationStep, Name: d.Name}, func() {
			for _, e := range expand.Templates(copies, properties, limits) {
				e.Field = field.NewPath("destinations").Index(i).String() + "." + e.Field
				errs = append(errs, e)
			}
			for _, obj := range copies {
				setAnnotation(obj, DestinationAnnotation, d.Name)
			}
		})
		if err := a.tracing.join(fork, copies); err != nil {
			return nil, nil, err
		}
		encoded, err := jsonbytes.EncodeObjects(copies)
		if err != nil {
			return nil, nil, err
		}
		for _, o := range encoded {
			total += len(o)
		}
		if !ctx.Raise(total) {
			if refused := ctx.MemoryErr(); refused != nil {
				return nil, nil, refused
			}
			return nil, field.ErrorList{field.TooLong(field.NewPath("destinations").Index(i), total, max(a.largest, a.maxBytes))}, nil
		}
		out = append(out, encoded...)
	}
	if len(errs) > 0 {
		return nil, errs, nil
	}
	return out, nil, nil
}

// asksExpansion reports whether a decoded object asks for template expansion.
func asksExpansion(objects []transform.Object) bool {
	for _, obj := range objects {
		metadata, _ := obj["metadata"].(map[string]any)
		annotations, _ := metadata["annotations"].(map[string]any)
		if _, ok := annotations[expand.TemplatesAnnotation]; ok {
			return true
		}
	}
	return false
}

func setAnnotation(obj transform.Object, key, value string) {
	metadata, ok := obj["metadata"].(map[string]any)
	if !ok {
		metadata = map[string]any{}
		obj["metadata"] = metadata
	}
	annotations, ok := metadata["annotations"].(map[string]any)
	if !ok {
		annotations = map[string]any{}
		metadata["annotations"] = annotations
	}
	annotations[key] = value
}
