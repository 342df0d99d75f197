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
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// StepObserver learns how long each transformer of a pipeline ran, by kind, so that a server
// can export it as metrics; the library itself keeps no counters.
type StepObserver func(kind string, d time.Duration)

type stepObserverKey struct{}

// WithStepObserver returns a request context whose pipelines report each transformer they run
// to o. It travels with the request, so a cached Pipeline needs no state of its own for it.
func WithStepObserver(ctx context.Context, o StepObserver) context.Context {
	return context.WithValue(ctx, stepObserverKey{}, o)
}

// SetStepObserver makes the pipelines run with this Context report each transformer they run
// to o, unless the request's context carries an observer of its own (WithStepObserver): a
// server whose every request has the same observer sets it once, where a context carrying it
// would be an allocation a request. It returns c, so that it chains after NewContext.
func (c *Context) SetStepObserver(o StepObserver) *Context {
	c.observer = o
	return c
}

// stepObserver is the request's observer, else the Context's, or a no-op.
func (c *Context) stepObserver() StepObserver {
	if c.request != nil {
		if o, ok := c.request.Value(stepObserverKey{}).(StepObserver); ok && o != nil {
			return o
		}
	}
	if c.observer != nil {
		return c.observer
	}
	return func(string, time.Duration) {}
}

// StepTracer learns what each step of a pipeline did, for provenance (pkg/provenance's
// Tracker): Before gets the objects a step is about to run over, After the step and the
// objects it returned. A Context without one (the default) costs the pipeline one nil check
// per step. A tracer that cannot go on (too many fields) stops recording and says so to
// whoever made it; the pipeline runs on.
type StepTracer interface {
	Before(objects []Object)
	After(step TracedStep, objects []Object)
}

// TracedStep names a step for a StepTracer.
type TracedStep struct {
	// Kind and Name are the config's kind and name (a generator's: what it makes).
	Kind, Name string
	// Generator says the step is one of the template's generators.
	Generator bool
	// Path is where the config was written.
	Path *field.Path
	// Config is the step's place in the config list the Pipeline was compiled from; -1 for
	// the name hash, which no config wrote.
	Config int
}

// NameHashStep is the Kind of the step that gives generated objects their content-hash name
// suffix once every transformer ran.
const NameHashStep = "NameHash"

// SetStepTracer makes the pipelines run with this Context report each step to t.
func (c *Context) SetStepTracer(t StepTracer) *Context {
	c.tracer = t
	return c
}
