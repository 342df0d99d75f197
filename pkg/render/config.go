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
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
)

// The defaults of the Renderer's caches, with why; DefaultConfig is their only reader.
const (
	// defaultPlanCacheBytes holds the plans of a few thousand typical templates; a plan is
	// about the size of its template's objects.
	defaultPlanCacheBytes = 64 << 20
	// defaultPipelineCacheBytes holds compiled transformer lists; their keys are what callers'
	// values make of the configs, so callers choose what fills this cache.
	defaultPipelineCacheBytes = 16 << 20
)

// Config is every setting of processing an operator may change: the Renderer's caches, the
// output of one request and the other limits of one request. The server's flags fill one
// (pkg/cmd/options), the server carries it as it is to NewRenderer, and the CLI's --local
// processing starts from the same DefaultConfig; a new setting is a field here, its default in
// DefaultConfig (or transform.DefaultLimits), and its flag.
type Config struct {
	// PlanCacheBytes bounds the compiled plans of stored templates kept. A plan over an eighth
	// of it is compiled per request instead.
	PlanCacheBytes int64
	// PipelineCacheBytes bounds the compiled transformer pipelines kept.
	PipelineCacheBytes int64
	// MaxOutputBytes bounds the JSON one request may make, through substitution and every
	// transformer, unless the request sets a lower bound.
	MaxOutputBytes int
	// Limits are the other per-request processing limits (Kustomization, expansion,
	// transformer imports, Starlark).
	Limits transform.Limits
}

// DefaultConfig returns the default of every setting: where the server's flags start.
func DefaultConfig() Config {
	return Config{PlanCacheBytes: defaultPlanCacheBytes, PipelineCacheBytes: defaultPipelineCacheBytes,
		MaxOutputBytes: process.DefaultMaxOutputBytes, Limits: transform.DefaultLimits()}
}

// WithDefaults returns c with every field that is not positive set to its default
// (transform.Limits.WithDefaults says which limit keeps its zero).
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	return Config{
		PlanCacheBytes:     transform.OrDefault(c.PlanCacheBytes, d.PlanCacheBytes),
		PipelineCacheBytes: transform.OrDefault(c.PipelineCacheBytes, d.PipelineCacheBytes),
		MaxOutputBytes:     transform.OrDefault(c.MaxOutputBytes, d.MaxOutputBytes),
		Limits:             c.Limits.WithDefaults(),
	}
}
