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

package server

import (
	"fmt"

	"github.com/spf13/pflag"

	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/expand"
)

// ProcessingOptions bound the memory processing keeps between requests.
type ProcessingOptions struct {
	// PlanCacheBytes bounds the compiled plans of stored templates.
	PlanCacheBytes int64
	// PipelineCacheBytes bounds the compiled transformer pipelines.
	PipelineCacheBytes int64
	// MaxOutputBytes bounds the JSON one processing request may make.
	MaxOutputBytes int
	// MaxConcurrent bounds the processing requests that run at once.
	MaxConcurrent int
	// Limits bound what one request's transformers, imports and expansion may cost.
	Limits transform.Limits
}

// NewProcessingOptions returns the defaults.
func NewProcessingOptions() *ProcessingOptions {
	return &ProcessingOptions{PlanCacheBytes: render.DefaultPlanCacheBytes, PipelineCacheBytes: render.DefaultPipelineCacheBytes,
		MaxOutputBytes: process.DefaultMaxOutputBytes, MaxConcurrent: renderrest.DefaultMaxConcurrent,
		Limits: transform.Limits{
			KustomizeObjects: transform.DefaultKustomizeObjects, KustomizeBytes: transform.DefaultKustomizeBytes,
			KustomizeApplications: transform.DefaultKustomizeApplications, KustomizeBuilds: transform.DefaultKustomizeBuilds(),
			ExpansionOutputBytes: expand.DefaultOutputBytes, ExpansionWork: expand.DefaultWork,
			TransformerImports: transform.DefaultTransformerImports, ImportDepth: transform.DefaultImportDepth,
		}}
}

// AddFlags adds the processing flags to fs.
func (o *ProcessingOptions) AddFlags(fs *pflag.FlagSet) {
	fs.Int64Var(&o.PlanCacheBytes, "plan-cache-bytes", o.PlanCacheBytes,
		"Bytes of compiled stored templates kept between requests (least recently used go first); a template over an eighth of it is compiled per request.")
	fs.Int64Var(&o.PipelineCacheBytes, "pipeline-cache-bytes", o.PipelineCacheBytes,
		"Bytes of compiled transformer lists kept between requests.")
	fs.IntVar(&o.MaxConcurrent, "max-concurrent-processing", o.MaxConcurrent,
		"Processing requests (processedtemplates, templates/{name}/processed) that run at once; each may take a few hundred MB. "+
			"Others wait up to a quarter of their time limit (15 s at most) and then get 429 with Retry-After.")
	fs.IntVar(&o.MaxOutputBytes, "max-output-bytes", o.MaxOutputBytes,
		"Bytes of JSON one processing request may make, through substitution and every transformer; a request past it gets a 422 naming where. With --max-concurrent-processing it bounds the memory processing can take.")
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

// Validate reports invalid values.
func (o *ProcessingOptions) Validate() []error {
	var errs []error
	for _, f := range []struct {
		name       string
		value, min int64
	}{
		{"plan-cache-bytes", o.PlanCacheBytes, 1 << 20}, {"pipeline-cache-bytes", o.PipelineCacheBytes, 1 << 20},
		{"max-output-bytes", int64(o.MaxOutputBytes), 1 << 20}, {"max-concurrent-processing", int64(o.MaxConcurrent), 1},
		{"max-kustomize-objects", int64(o.Limits.KustomizeObjects), 1}, {"max-kustomize-bytes", int64(o.Limits.KustomizeBytes), 1},
		{"max-kustomize-applications", int64(o.Limits.KustomizeApplications), 1}, {"max-concurrent-kustomize-builds", int64(o.Limits.KustomizeBuilds), 1},
		{"max-expansion-output-bytes", int64(o.Limits.ExpansionOutputBytes), 1}, {"max-expansion-work", int64(o.Limits.ExpansionWork), 1},
		{"max-transformer-imports", int64(o.Limits.TransformerImports), 1}, {"max-import-depth", int64(o.Limits.ImportDepth), 1},
	} {
		// Zero would silently mean the default further down, so it is refused with the rest.
		if f.value < f.min {
			errs = append(errs, fmt.Errorf("--%s must be at least %d, got %d", f.name, f.min, f.value))
		}
	}
	return errs
}
