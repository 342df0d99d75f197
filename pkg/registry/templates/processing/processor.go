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

// Package processing runs the engine and the steps after it for the API's two processing
// endpoints, so that both give the same answer for the same input.
package processing

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/utils/lru"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
)

// cacheSize bounds the compiled plans and pipelines kept; each is about the size of its
// template.
const cacheSize = 512

// Sources are what processing reads besides the request.
type Sources struct {
	// Templates reads the stored Templates of the request's namespace, for transformersFrom.
	Templates rest.Getter
	// RemovalRules returns the CustomTransforms in force; nil means none.
	RemovalRules func(ctx context.Context) ([]transform.RemovalRule, error)
	// KindToResource maps a kind to its plural resource, for CustomTransforms that name a
	// resource; nil means the built-in table of core kinds.
	KindToResource func(group, kind string) (string, bool)
}

// Processor processes templates and answers with a v1 List.
type Processor struct {
	sources   Sources
	plans     *lru.Cache
	pipelines *lru.Cache
}

// NewProcessor returns a Processor with empty caches.
func NewProcessor(sources Sources) *Processor {
	return &Processor{sources: sources, plans: lru.New(cacheSize), pipelines: lru.New(cacheSize)}
}

// Input is one processing request.
type Input struct {
	// Template is the template to process.
	Template *templates.Template
	// Stored says the template came from storage, so its plan may be cached under its UID and
	// resourceVersion; a template given in the request is compiled for that request only.
	Stored bool
	// Request holds the caller's parameter values and labels.
	Request process.Request
	// Properties are the values of template expansion.
	Properties map[string]string
	// Destinations, when given, repeat expansion per destination.
	Destinations []templates.Destination
}

// Process runs the whole processing of DESIGN.md: the engine (parameters, substitution,
// labels), the consolidated transformers, the CustomTransforms that bind, and template
// expansion. Every problem of the template or the request comes back as one 422 naming its
// fields; warnings become API warnings.
func (p *Processor) Process(ctx context.Context, in Input) (*v1alpha1.List, error) {
	t, configs, importsKey, errs := p.consolidate(ctx, in.Template)
	if len(errs) > 0 {
		return nil, invalid(in.Template, errs)
	}
	plan, errs := p.plan(t, in.Stored, importsKey)
	if len(errs) > 0 {
		return nil, invalid(t, errs)
	}
	result, errs := plan.Execute(in.Request)
	if len(errs) > 0 {
		return nil, invalid(t, errs)
	}
	after := &afterEngine{kindResource: p.sources.KindToResource, properties: in.Properties, destinations: in.Destinations}
	if after.pipeline, errs = p.pipeline(configs, result.Transformers); len(errs) > 0 {
		return nil, invalid(t, errs)
	}
	if p.sources.RemovalRules != nil {
		rules, err := p.sources.RemovalRules(ctx)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("reading CustomTransforms: %w", err))
		}
		after.rules = rules
	}
	out, err := after.run(result.Objects)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	for _, w := range append(result.Warnings, out.warnings...) {
		warning.AddWarning(ctx, "", w)
	}
	if len(out.invalid) > 0 {
		return nil, invalid(t, out.invalid)
	}
	return answer(result, out.objects)
}

// consolidate replaces the template's transformer fields by its consolidated list (imports,
// own transformers, overrides, order), which the engine then substitutes parameters into. It
// also returns the list itself, whose paths say where each config was written, and a key
// naming the imported templates' versions, part of the plan's cache key.
func (p *Processor) consolidate(ctx context.Context, t *templates.Template) (*templates.Template, []transform.Config, string, field.ErrorList) {
	if len(t.Transformers) == 0 && len(t.TransformersFrom) == 0 && len(t.TransformerOverrides) == 0 && len(t.TransformerOrder) == 0 {
		return t, nil, "", nil
	}
	var imports strings.Builder
	get := func(name string) (*templates.Template, error) {
		if p.sources.Templates == nil {
			return nil, fmt.Errorf("no stored templates to import from")
		}
		obj, err := p.sources.Templates.Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		imported := obj.(*templates.Template)
		fmt.Fprintf(&imports, "/%s/%s", imported.UID, imported.ResourceVersion)
		return imported, nil
	}
	configs, errs := transform.Consolidate(t, get)
	if len(errs) > 0 {
		return nil, nil, "", errs
	}
	consolidated := *t
	consolidated.Transformers = make([]runtime.RawExtension, len(configs))
	for i, c := range configs {
		consolidated.Transformers[i].Raw = c.Raw
	}
	consolidated.TransformersFrom, consolidated.TransformerOverrides, consolidated.TransformerOrder = nil, nil, nil
	return &consolidated, configs, imports.String(), nil
}

func (p *Processor) plan(t *templates.Template, stored bool, importsKey string) (*process.Plan, field.ErrorList) {
	dialect := process.Stencil
	if t.OpenShift {
		dialect = process.OpenShift
	}
	if !stored {
		return process.Compile(t, dialect)
	}
	// A resourceVersion names one content of one object, so a plan cached under it (and under
	// the versions of what it imports) never goes stale; an update gets a new key and the old
	// plan ages out.
	key := string(t.UID) + "/" + t.ResourceVersion + importsKey
	if cached, ok := p.plans.Get(key); ok {
		return cached.(*process.Plan), nil
	}
	plan, errs := process.Compile(t, dialect)
	if len(errs) == 0 {
		p.plans.Add(key, plan)
	}
	return plan, errs
}

// pipeline compiles the consolidated configs as the engine substituted them, or reuses the
// pipeline of the same substituted configs: most requests give the transformers the same
// parameters.
func (p *Processor) pipeline(configs []transform.Config, substituted []json.RawMessage) (*transform.Pipeline, field.ErrorList) {
	if len(substituted) == 0 {
		return nil, nil
	}
	h := sha256.New()
	for _, c := range substituted {
		h.Write(c)
		h.Write([]byte{0})
	}
	key := string(h.Sum(nil))
	if cached, ok := p.pipelines.Get(key); ok {
		return cached.(*transform.Pipeline), nil
	}
	list := make([]transform.Config, len(substituted))
	for i, raw := range substituted {
		list[i] = transform.Config{Raw: raw, Path: field.NewPath("transformers").Index(i)}
		if i < len(configs) && configs[i].Path != nil {
			list[i].Path = configs[i].Path
		}
	}
	pipeline, errs := transform.Compile(list)
	if len(errs) == 0 {
		p.pipelines.Add(key, pipeline)
	}
	return pipeline, errs
}

func invalid(t *templates.Template, errs field.ErrorList) error {
	return apierrors.NewInvalid(templates.Kind("Template"), t.Name, errs)
}

// answer wraps the processed objects, as they are, into the v1 List the endpoints return.
func answer(result *process.Result, objects []json.RawMessage) (*v1alpha1.List, error) {
	list := &v1alpha1.List{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"},
		Items:    make([]runtime.RawExtension, len(objects)),
		Message:  result.Message,
	}
	for i, obj := range objects {
		list.Items[i].Raw = obj
	}
	if len(result.Parameters) > 0 {
		list.Parameters = make([]v1alpha1.Parameter, len(result.Parameters))
	}
	for i := range result.Parameters {
		if err := v1alpha1.Convert_templates_Parameter_To_v1alpha1_Parameter(&result.Parameters[i], &list.Parameters[i], nil); err != nil {
			return nil, fmt.Errorf("converting parameter %s: %w", result.Parameters[i].Name, err)
		}
	}
	return list, nil
}
