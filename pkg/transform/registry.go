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
	"maps"
	"slices"
)

// Registry is what a binary knows how to run: the built-in transformer and generator kinds
// (apiVersion builtin), the inline Kustomization, and the pass that gives generated objects
// their content-hash name suffix. Nothing registers itself: whoever runs pipelines builds one
// Registry when it starts (pkg/render does, with builtin.Register, generator.Register and
// kustomize.Register) and compiles every pipeline with it, so that what a binary runs is
// written in one place. Plugins are not kinds: a namespace's policy decides which run (see
// Plugins). A Registry is read-only once built, and safe for concurrent use then.
type Registry struct {
	transformers map[string]Factory
	generators   map[string]Factory
	// kustomization builds the step of an inline Kustomization; nil when none is registered.
	kustomization Factory
	// hashNames gives the objects marked for it (MarkForHash) their content-hash name suffix
	// after the last step; nil when no generator marks any.
	hashNames func(ctx *Context, objects []Object) error
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry {
	return &Registry{transformers: map[string]Factory{}, generators: map[string]Factory{}}
}

// AddTransformer registers the built-in transformer kind; a kind registered twice is a bug of
// the binary, and panics.
func (r *Registry) AddTransformer(kind string, factory Factory) {
	if _, dup := r.transformers[kind]; dup {
		panic("transform: built-in registered twice: " + kind)
	}
	r.transformers[kind] = factory
}

// AddGenerator registers the built-in generator kind; twice panics, as for AddTransformer.
func (r *Registry) AddGenerator(kind string, factory Factory) {
	if _, dup := r.generators[kind]; dup {
		panic("transform: generator registered twice: " + kind)
	}
	r.generators[kind] = factory
}

// SetKustomization registers the factory of the inline Kustomization (apiVersion
// KustomizationAPIVersion, kind Kustomization).
func (r *Registry) SetKustomization(factory Factory) { r.kustomization = factory }

// SetNameHasher registers the pass that runs after the last step of every pipeline compiled
// from r, when some object is marked for the content-hash name suffix (MarkForHash).
func (r *Registry) SetNameHasher(hash func(ctx *Context, objects []Object) error) { r.hashNames = hash }

// Factory returns the factory of a transformer kind of apiVersion (a built-in, or the
// Kustomization), or why there is none.
func (r *Registry) Factory(apiVersion, kind string) (Factory, string) {
	switch apiVersion {
	case "", BuiltinAPIVersion:
		if f, ok := r.transformers[kind]; ok {
			return f, ""
		}
		return nil, "unknown built-in transformer kind"
	case KustomizationAPIVersion:
		if kind == "Kustomization" && r.kustomization != nil {
			return r.kustomization, ""
		}
		return nil, "only kind Kustomization is supported with apiVersion " + KustomizationAPIVersion
	}
	return nil, "a plugin's apiVersion must name an API group"
}

// transformerKinds lists the kinds of the built-in transformers, sorted.
func (r *Registry) transformerKinds() []string { return slices.Sorted(maps.Keys(r.transformers)) }

// generatorKinds lists the kinds of the built-in generators, sorted.
func (r *Registry) generatorKinds() []string { return slices.Sorted(maps.Keys(r.generators)) }
