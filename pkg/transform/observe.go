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

// stepObserver is the request's observer, or a no-op.
func (c *Context) stepObserver() StepObserver {
	if c.request != nil {
		if o, ok := c.request.Value(stepObserverKey{}).(StepObserver); ok && o != nil {
			return o
		}
	}
	return func(string, time.Duration) {}
}
