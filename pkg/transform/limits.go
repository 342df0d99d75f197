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

import "time"

// Default per-request processing limits; the server's flags default to them. Why each value
// was chosen is written beside it (the Kustomization's below, the imports' in composition.go).
const (
	// DefaultKustomizeObjects bounds the objects one inline Kustomization runs over.
	DefaultKustomizeObjects = maxKustomizeObjects
	// DefaultKustomizeBytes bounds the JSON of the objects one inline Kustomization runs over.
	DefaultKustomizeBytes = maxKustomizeBytes
	// DefaultKustomizeApplications bounds the objects plus patch and replacement applications
	// of one inline Kustomization.
	DefaultKustomizeApplications = maxKustomizeWork
	// DefaultTransformerImports bounds the templates one consolidation reads.
	DefaultTransformerImports = maxImportReads
	// DefaultImportDepth bounds transformer import chains.
	DefaultImportDepth = maxImportDepth
)

// Measured with krusty v0.21.2: a build costs about a millisecond per object for up to 1,000
// objects (its own passes grow with the square of the objects, which the object limit bounds),
// and each application of a patch or a replacement to one object about as much again. The
// passes of namespace, prefixes, labels and images cost a tenth of that and are not counted.
const (
	maxKustomizeObjects = 1000
	maxKustomizeBytes   = 4 << 20
	// maxKustomizeWork bounds objects plus patch and replacement applications: a few seconds
	// of one core. Issue 17's request (1,000 objects, 80 patches over all of them) is 81,000
	// and took two minutes.
	maxKustomizeWork = 5000
)

// Limits are the per-request processing limits a server operator may change. They bound what
// one request costs, not whether a stored object is valid, so they are carried per request
// (in a Context, or given to ConsolidateWithin) rather than held in package state. A zero or
// negative field means its default.
type Limits struct {
	// KustomizeObjects bounds the objects one inline Kustomization runs over.
	KustomizeObjects int
	// KustomizeBytes bounds the JSON bytes of the objects one inline Kustomization runs over.
	KustomizeBytes int
	// KustomizeApplications bounds objects plus patch and replacement applications of one
	// inline Kustomization.
	KustomizeApplications int
	// KustomizeBuilds bounds the Kustomization builds running at once across every request
	// of a server, so it is not read from one request's Context: whoever holds the server's
	// state makes BuildSlots of it. Zero means the process's shared DefaultKustomizeBuilds.
	KustomizeBuilds int
	// ExpansionOutputBytes and ExpansionWork bound template expansion over one request, all
	// destinations together; zero means pkg/transform/expand's defaults. They are applied by
	// the caller of expand, since expand depends on this package and not the other way.
	ExpansionOutputBytes, ExpansionWork int
	// TransformerImports bounds the imported templates one consolidation reads.
	TransformerImports int
	// ImportDepth bounds transformer import chains.
	ImportDepth int
	// StarlarkSteps, StarlarkTimeout and StarlarkMemoryBytes bound one Starlark
	// transformer's run: bytecode steps, wall-clock time, and what its operators and
	// built-ins may create.
	StarlarkSteps       int
	StarlarkTimeout     time.Duration
	StarlarkMemoryBytes int
}

// OrDefault returns v, or def when v is not positive: a limit or a timeout left at zero.
func OrDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// MaxKustomizeObjects is the bound on the objects of one inline Kustomization in force.
func (l Limits) MaxKustomizeObjects() int { return OrDefault(l.KustomizeObjects, maxKustomizeObjects) }

// MaxKustomizeBytes is the bound on the JSON of an inline Kustomization's objects in force.
func (l Limits) MaxKustomizeBytes() int { return OrDefault(l.KustomizeBytes, maxKustomizeBytes) }

// MaxKustomizeApplications is the bound on the objects plus patch and replacement applications
// of one inline Kustomization in force.
func (l Limits) MaxKustomizeApplications() int {
	return OrDefault(l.KustomizeApplications, maxKustomizeWork)
}
func (l Limits) importReads() int { return OrDefault(l.TransformerImports, maxImportReads) }
func (l Limits) importDepth() int { return OrDefault(l.ImportDepth, maxImportDepth) }

// SetLimits sets the processing limits the transformers run under; without it, the defaults.
// It returns c, so that it chains after NewContext.
func (c *Context) SetLimits(l Limits) *Context {
	c.limits = l
	return c
}
