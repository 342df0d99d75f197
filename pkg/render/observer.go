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

import "stencil.dev/stencil/pkg/transform"

// The names of the Renderer's caches, as CacheObserver hears them.
const (
	// PlanCache holds compiled plans of stored templates.
	PlanCache = "plan"
	// PipelineCache holds compiled transformer pipelines.
	PipelineCache = "pipeline"
)

// CacheObserver learns how the Renderer's caches serve, so that a server can export it as
// metrics; the library itself keeps no counters.
type CacheObserver interface {
	// CacheLookup reports one lookup in cache, found or not.
	CacheLookup(cache string, hit bool)
	// CacheEntries reports how many entries cache holds, and their bytes, after it grew.
	CacheEntries(cache string, entries int, bytes int64)
}

// ObserveCaches makes the Renderer report its caches to o from now on. Call it before the
// Renderer is shared.
func (p *Renderer) ObserveCaches(o CacheObserver) { p.observer = o }

// ObserveSteps makes every pipeline p runs report each transformer it runs to o (unless the
// request's context carries an observer of its own: transform.WithStepObserver). Call it
// before p processes anything.
func (p *Renderer) ObserveSteps(o transform.StepObserver) { p.stepObserver = o }

func (p *Renderer) cacheLookup(cache string, hit bool) {
	if p.observer != nil {
		p.observer.CacheLookup(cache, hit)
	}
}

func (p *Renderer) cacheEntries(cache string, c *byteCache) {
	if p.observer != nil {
		entries, bytes := c.stats()
		p.observer.CacheEntries(cache, entries, bytes)
	}
}
