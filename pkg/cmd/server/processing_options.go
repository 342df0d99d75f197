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
}

// NewProcessingOptions returns the defaults.
func NewProcessingOptions() *ProcessingOptions {
	return &ProcessingOptions{PlanCacheBytes: render.DefaultPlanCacheBytes, PipelineCacheBytes: render.DefaultPipelineCacheBytes,
		MaxOutputBytes: process.DefaultMaxOutputBytes, MaxConcurrent: renderrest.DefaultMaxConcurrent}
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
}

// Validate reports invalid values.
func (o *ProcessingOptions) Validate() []error {
	var errs []error
	if o.PlanCacheBytes < 1<<20 {
		errs = append(errs, fmt.Errorf("--plan-cache-bytes must be at least 1048576, got %d", o.PlanCacheBytes))
	}
	if o.PipelineCacheBytes < 1<<20 {
		errs = append(errs, fmt.Errorf("--pipeline-cache-bytes must be at least 1048576, got %d", o.PipelineCacheBytes))
	}
	if o.MaxConcurrent < 1 {
		errs = append(errs, fmt.Errorf("--max-concurrent-processing must be at least 1, got %d", o.MaxConcurrent))
	}
	if o.MaxOutputBytes < 1<<20 {
		errs = append(errs, fmt.Errorf("--max-output-bytes must be at least 1048576, got %d", o.MaxOutputBytes))
	}
	return errs
}
