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

// Package transform is the core of the transformer pipeline: the Transformer interface and the
// Context a step runs in (warnings, cancellation, the output budget, the objects' original
// names), the Registry of kinds, config decoding, composition (transformersFrom, overrides,
// order), the processing limits, and the Pipeline that runs the steps in order. It is a pure
// library: it imports nothing from the server, and none of the packages of steps, which sit
// above it and register into a Registry:
//
//   - filters: field specs, selectors, name references, patch documents, shared by the steps;
//   - builtin, generator, kustomize: the built-in transformers, the built-in generators and
//     the inline Kustomization, each with a Register function;
//   - plugin/starlark and plugin/exec: the plugin runtimes (exec is the only user of
//     pkg/sandbox), and plugin, the namespace's policy that picks between them (it implements
//     Plugins);
//   - expand and remove: template expansion (which runs after the pipeline) and the removal
//     paths of CustomTransforms, which the RemoveTransformer built-in shares.
//
// Objects are decoded once for the whole pipeline (numbers as json.Number, so integers keep
// their precision), every transformer edits that tree, and the result is encoded once. A
// template without transformers never reaches this package.
//
// Processing (pkg/render, which builds the one Registry of the binary) uses it in four steps:
//
//	configs, errs := transform.Consolidate(tmpl, getter) // imports, overrides, order
//	// substitute parameters into each configs[i].Raw
//	pipeline, errs := reg.Compile(policy, configs)      // 422 errors with field paths
//	objects, err := jsonbytes.DecodeObjects(raws)       // once, for every later step
//	ctx := transform.NewContext(request, maxBytes)      // warnings, cancellation, budget
//	objects, err = pipeline.Transform(ctx, objects)     // err is a *transform.Error
//
// Registry.ValidateTransformers checks a Template's own transformers at create and update, and
// RenderYAML shows a consolidated list. Objects are decoded and encoded by pkg/jsonbytes.
package transform

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/jsonbytes"
)

// Object is one Kubernetes object in the pipeline, as decoded by jsonbytes.DecodeObjects.
type Object = map[string]any

// Context carries what a transformer reports besides its result, and what the pipeline
// remembers about objects between transformers. The zero value is ready to use.
type Context struct {
	// request is the context of the request being processed, nil for none; the pipeline stops
	// between steps once it is done.
	request  context.Context
	warnings []string
	// maxBytes bounds the objects' size as JSON after every step, and during the steps that
	// add to every object; zero means no bound. size is that size as measured after the last
	// step, plus what the running step has reported adding since.
	maxBytes, size int
	// grow, when set (SetGrow), raises maxBytes up to hardBytes as the objects grow; growErr
	// is why it would not (the request's memory refused).
	grow      func(size int) (int, error)
	hardBytes int
	growErr   error
	// sized says that size was given (SetEncodedSize) for the objects before the first step.
	sized bool
	// origins holds the name and namespace an object had when the pipeline started, recorded
	// only when a transformer changes them, so that patch targets and replica overrides can
	// still select it by its original name, as Kustomize's selectors do.
	origins map[unsafe.Pointer]origin
	// limits are the request's processing limits; zero fields mean the defaults.
	limits Limits
	// buildSlots bounds the Kustomization builds running at once; nil for the process's own.
	buildSlots *BuildSlots
	// observer is the StepObserver of the pipeline's owner (SetStepObserver), for a request
	// whose context carries none.
	observer StepObserver
	// needsHash holds the generated objects that get Kustomize's content-hash name suffix at
	// the end of the pipeline.
	needsHash map[unsafe.Pointer]bool
	// tracer, when set, learns what each step did (provenance); nil costs nothing.
	tracer StepTracer
}

// origin is the identity an object had before the first rename.
type origin struct {
	name, namespace string
}

// ObjectKey identifies an object by its map, which transformers edit in place.
func ObjectKey(obj Object) unsafe.Pointer { return reflect.ValueOf(obj).UnsafePointer() }

// RecordOrigin remembers obj's current name and namespace as its original identity, unless one
// is already recorded. Transformers call it before they rename or move an object.
func (c *Context) RecordOrigin(obj Object) {
	key := ObjectKey(obj)
	if _, ok := c.origins[key]; ok {
		return
	}
	if c.origins == nil {
		c.origins = map[unsafe.Pointer]origin{}
	}
	c.origins[key] = origin{name: NestedString(obj, "metadata", "name"), namespace: NestedString(obj, "metadata", "namespace")}
}

// OriginalName returns the name and namespace obj had when the pipeline started.
func (c *Context) OriginalName(obj Object) (name, namespace string) {
	if o, ok := c.origins[ObjectKey(obj)]; ok {
		return o.name, o.namespace
	}
	return NestedString(obj, "metadata", "name"), NestedString(obj, "metadata", "namespace")
}

// NewContext returns a Context for the request ctx whose objects may grow to at most maxBytes
// of JSON; zero means no bound.
//
// The engine bounds what substitution writes, but a transformer multiplies what it is given
// (a JSON 6902 copy doubles an object, an annotation is set on every object), so a small
// request could otherwise ask for gigabytes: each step's output is held to the same budget.
func NewContext(ctx context.Context, maxBytes int) *Context {
	return &Context{request: ctx, maxBytes: max(maxBytes, 0)}
}

// SetEncodedSize gives the size as JSON of the objects the pipeline will start from, which
// it measures otherwise: the engine's output is usually known to have the size its trees
// encode to (jsonbytes.DecodedSize), and measuring 1,600 objects costs a twentieth of
// processing them.
func (c *Context) SetEncodedSize(n int) *Context {
	c.size, c.sized = n, true
	return c
}

// SetGrow makes the budget of NewContext where the objects' limit starts: as they grow past
// it, grow is asked for a limit of at least their size, up to hard, and answers the new limit
// or why there is none (a request's memory, which charges what the larger objects hold before
// they are made). A step that grows the objects is so run once, never again with a larger
// budget. It returns c, so that it chains after NewContext.
func (c *Context) SetGrow(hard int, grow func(size int) (int, error)) *Context {
	c.hardBytes, c.grow = hard, grow
	return c
}

// ErrOutputTooLarge is wrapped by the error of a transformer whose objects pass the budget.
var ErrOutputTooLarge = errors.New("output too large")

// TooLarge is the error of objects passing the budget, for a step to return; when the
// request's memory refused to grow it (SetGrow), that refusal.
func (c *Context) TooLarge() error {
	if c.growErr != nil {
		return c.growErr
	}
	limit := c.maxBytes
	if c.grow != nil {
		limit = c.hardBytes
	}
	return fmt.Errorf("%w: the objects would pass the limit of %d bytes of JSON for one request", ErrOutputTooLarge, limit)
}

// MemoryErr is why the request's memory gave the objects no more room (SetGrow), nil when it
// never refused.
func (c *Context) MemoryErr() error { return c.growErr }

// Fits reports whether the objects may grow by n more bytes, raising the budget when it can.
func (c *Context) Fits(n int) bool { return c.maxBytes == 0 || c.Raise(c.size+n) }

// Raise reports whether the objects may be size bytes of JSON: within the budget, or within
// what SetGrow's grow raises it to.
func (c *Context) Raise(size int) bool {
	if c.maxBytes == 0 || size <= c.maxBytes {
		return true
	}
	if c.grow == nil || c.growErr != nil || size > c.hardBytes {
		return false
	}
	limit, err := c.grow(size)
	if err != nil {
		c.growErr = err
		return false
	}
	c.maxBytes = max(c.maxBytes, limit)
	return size <= c.maxBytes
}

// Spend records that the running step added n bytes (negative when it removed some) and says
// whether the step may go on: the request's error once it is done, errOutputTooLarge once the
// objects pass the budget. Steps that add to every object call it once per object or per
// patch application, so that work stops in the middle of a long step, not only after it.
func (c *Context) Spend(n int) error {
	if err := c.Err(); err != nil {
		return err
	}
	c.size += n
	if !c.Fits(0) {
		return c.TooLarge()
	}
	return nil
}

// measure sets size to the objects' size as JSON and reports whether it is within the budget,
// raised as it may be (Raise). An object is measured only up to the budget: past it, the
// budget is raised for what was counted and the object measured again.
func (c *Context) measure(objects []Object) error {
	c.size = 0
	for _, obj := range objects {
		for {
			limit := 0
			if c.maxBytes > 0 {
				limit = max(c.maxBytes-c.size, 1)
			}
			n := jsonbytes.EncodedSize(obj, limit)
			if c.maxBytes == 0 || c.size+n <= c.maxBytes {
				c.size += n
				break
			}
			if !c.Raise(c.size + n) {
				c.size += n
				return c.TooLarge()
			}
		}
	}
	return nil
}

// Request is the context of the request being processed, or nil for none.
func (c *Context) Request() context.Context { return c.request }

// MaxBytes bounds the objects' size as JSON (NewContext) for now: Raise may raise it; zero
// means no bound.
func (c *Context) MaxBytes() int { return c.maxBytes }

// Limits are the processing limits the transformers run under (SetLimits), every field set:
// those not given are the defaults.
func (c *Context) Limits() Limits { return c.limits.WithDefaults() }

// Err is the request's error once it is done (cancelled or past its deadline), else nil.
func (c *Context) Err() error {
	if c.request == nil {
		return nil
	}
	return c.request.Err()
}

// Done is closed when the request is done; nil, which never closes, without a request.
func (c *Context) Done() <-chan struct{} {
	if c.request == nil {
		return nil
	}
	return c.request.Done()
}

// Warnf records a warning; the server returns warnings as API warnings.
func (c *Context) Warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// Warnings returns the warnings recorded so far.
func (c *Context) Warnings() []string { return c.warnings }

// Transformer changes a list of objects. It may edit the objects in place, and it may drop,
// add or reorder them by returning a different slice.
type Transformer interface {
	Transform(ctx *Context, objects []Object) ([]Object, error)
}

// Factory builds a transformer from its config object (JSON, parameters already substituted),
// reporting every problem of the config with paths under fldPath.
type Factory func(config []byte, fldPath *field.Path) (Transformer, field.ErrorList)
