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

package options

import (
	"fmt"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/render"
)

// minProcessingMemory is the least --processing-memory-bytes: below it, a request at the
// smallest output limit with a transformer would not fit.
const minProcessingMemory = 64 << 20

// maxProcessingMemory is the most --processing-memory-bytes may be: a tebibyte, past the
// memory of any machine the server runs on, where the budget would bound nothing.
const maxProcessingMemory = 1 << 40

// ProcessingOptions are the settings of processing: the renderer's caches, the output and the
// other limits of one request (render.Config), and the memory the server's processing
// requests hold together. The Starlark limits are StarlarkOptions' alone: Config's are zero
// here, and ApplyTo leaves the target's as they are, so that the two options' ApplyTo give
// the same configuration in either order.
type ProcessingOptions struct {
	// Config holds the renderer's settings, the defaults until flags change them.
	render.Config
	// MemoryBytes is the memory processing requests may hold together; zero derives it from
	// the process's memory limit (the server's processingMemory).
	MemoryBytes int64
	// maxConcurrent is the former --max-concurrent-processing, accepted and ignored.
	maxConcurrent int
}

// NewProcessingOptions returns the defaults: render.DefaultConfig, and the memory derived
// from the process's memory limit.
func NewProcessingOptions() *ProcessingOptions {
	o := &ProcessingOptions{Config: render.DefaultConfig()}
	o.Limits.StarlarkSteps, o.Limits.StarlarkTimeout, o.Limits.StarlarkMemoryBytes = 0, 0, 0
	return o
}

// AddFlags adds the processing flags to fs.
func (o *ProcessingOptions) AddFlags(fs *pflag.FlagSet) {
	fs.Int64Var(&o.PlanCacheBytes, "plan-cache-bytes", o.PlanCacheBytes,
		"Bytes of compiled stored templates kept between requests (least recently used go first); a template over an eighth of it is compiled per request.")
	fs.Int64Var(&o.PipelineCacheBytes, "pipeline-cache-bytes", o.PipelineCacheBytes,
		"Bytes of compiled transformer lists kept between requests.")
	fs.Int64Var(&o.MemoryBytes, "processing-memory-bytes", o.MemoryBytes,
		"Memory the processing requests in flight (processedtemplates, templates/{name}/processed, the TemplateInstance controller's) may hold together, "+
			"each charged before it takes it what it may take, until its answer is written; requests that may run plugins hold half of it at most. "+
			"A request that does not fit waits up to a quarter of its time limit (15 s at most), then gets 429 with Retry-After. "+
			"0, the default: half of GOMEMLIMIT, else half of the cgroup's memory limit, else 1 GiB. See docs/operations.md, Memory.")
	fs.IntVar(&o.maxConcurrent, "max-concurrent-processing", 0, "Former bound on processing requests at once.")
	_ = fs.MarkDeprecated("max-concurrent-processing", "processing is bounded by the memory it holds, --processing-memory-bytes; this flag does nothing")
	fs.IntVar(&o.MaxOutputBytes, "max-output-bytes", o.MaxOutputBytes,
		"Bytes of JSON one processing request may make, through substitution and every transformer; a request past it gets a 422 naming where. "+
			"A request is given less when what it would hold at this output does not fit in --processing-memory-bytes (docs/operations.md, Memory).")
	l := &o.Limits
	fs.IntVar(&l.KustomizeObjects, "max-kustomize-objects", l.KustomizeObjects,
		"Objects one inline Kustomization transformer may run over; a build costs about a millisecond per object, and some of its passes grow with their square.")
	fs.IntVar(&l.KustomizeBytes, "max-kustomize-bytes", l.KustomizeBytes,
		"Bytes of JSON of the objects one inline Kustomization transformer may run over.")
	fs.IntVar(&l.KustomizeApplications, "max-kustomize-applications", l.KustomizeApplications,
		"Objects plus patch and replacement applications one inline Kustomization may make, estimated before the build starts (a build cannot be stopped once started); each costs about a millisecond.")
	fs.IntVar(&l.KustomizeBuilds, "max-concurrent-kustomize-builds", l.KustomizeBuilds,
		"Inline Kustomization builds that run at once over all requests (a build cannot be stopped once started, so each takes a core until it ends); others wait their turn. Default: half the cores, 2 at least.")
	fs.IntVar(&l.ExpansionOutputBytes, "max-expansion-output-bytes", l.ExpansionOutputBytes,
		"Bytes template expansion may write for one request, shared among its destinations (each keeps at least 64 KiB).")
	fs.IntVar(&l.ExpansionWork, "max-expansion-work", l.ExpansionWork,
		"Units of template expansion work (about a byte handled each) for one request, shared among its destinations (each keeps at least 1 Mi).")
	fs.IntVar(&l.TransformerImports, "max-transformer-imports", l.TransformerImports,
		"Templates one request's transformersFrom imports may read, counting each read; each is a storage read.")
	fs.IntVar(&l.ImportDepth, "max-import-depth", l.ImportDepth,
		"Depth of transformersFrom import chains.")
}

// Validate reports every invalid value: a limit below 1 (or the caches below 1 MiB, a
// request's output below 1 MiB) or past a thousand times its default, each naming its flag.
func (o *ProcessingOptions) Validate() []error {
	d, l := render.DefaultConfig(), o.Limits
	const mib = 1 << 20
	errs := checkLimits(
		limit{flag: "plan-cache-bytes", value: o.PlanCacheBytes, min: mib, def: d.PlanCacheBytes},
		limit{flag: "pipeline-cache-bytes", value: o.PipelineCacheBytes, min: mib, def: d.PipelineCacheBytes},
		limit{flag: "max-output-bytes", value: int64(o.MaxOutputBytes), min: mib, def: int64(d.MaxOutputBytes)},
		count("max-kustomize-objects", l.KustomizeObjects, d.Limits.KustomizeObjects),
		count("max-kustomize-bytes", l.KustomizeBytes, d.Limits.KustomizeBytes),
		count("max-kustomize-applications", l.KustomizeApplications, d.Limits.KustomizeApplications),
		count("max-concurrent-kustomize-builds", l.KustomizeBuilds, d.Limits.KustomizeBuilds),
		count("max-expansion-output-bytes", l.ExpansionOutputBytes, d.Limits.ExpansionOutputBytes),
		count("max-expansion-work", l.ExpansionWork, d.Limits.ExpansionWork),
		count("max-transformer-imports", l.TransformerImports, d.Limits.TransformerImports),
		count("max-import-depth", l.ImportDepth, d.Limits.ImportDepth),
	)
	if o.MemoryBytes != 0 && (o.MemoryBytes < minProcessingMemory || o.MemoryBytes > maxProcessingMemory) {
		errs = append(errs, fmt.Errorf("--processing-memory-bytes must be 0 (derived from the memory limit) or between %d and %d, got %d",
			minProcessingMemory, int64(maxProcessingMemory), o.MemoryBytes))
	}
	return errs
}

// ApplyTo sets c to the renderer's settings but the Starlark limits, which it leaves as they
// are (StarlarkOptions.ApplyTo sets them, before or after).
func (o *ProcessingOptions) ApplyTo(c *render.Config) {
	steps, timeout, memory := c.Limits.StarlarkSteps, c.Limits.StarlarkTimeout, c.Limits.StarlarkMemoryBytes
	*c = o.Config
	c.Limits.StarlarkSteps, c.Limits.StarlarkTimeout, c.Limits.StarlarkMemoryBytes = steps, timeout, memory
}
