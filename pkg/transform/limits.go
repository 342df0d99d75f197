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

// The defaults of Limits, each with why it is what it is. requestDefaults gathers them and is
// the only reader: the server's flags, the renderer and every step start from DefaultLimits
// or WithDefaults, so a default is changed here and nowhere else.
const (
	// Measured with krusty v0.21.2: a build costs about a millisecond per object for up to
	// 1,000 objects (its own passes grow with the square of the objects, which the object
	// limit bounds), and each application of a patch or a replacement to one object about as
	// much again. The passes of namespace, prefixes, labels and images cost a tenth of that
	// and are not counted.
	defaultKustomizeObjects = 1000
	defaultKustomizeBytes   = 4 << 20
	// defaultKustomizeApplications bounds objects plus patch and replacement applications: a
	// few seconds of one core. Issue 17's request (1,000 objects, 80 patches over all of
	// them) is 81,000 and took two minutes.
	defaultKustomizeApplications = 5000

	// defaultImportDepth bounds import chains; cycles are caught earlier, this only stops
	// runaway chains of distinct templates.
	defaultImportDepth = 16
	// defaultTransformerImports bounds the imported templates one consolidation reads.
	// Without it, templates that import the same templates through several paths (a diamond
	// at every level) would cost reads exponential in the depth, each one a storage read on
	// the server.
	defaultTransformerImports = 64

	// Template expansion (pkg/transform/expand) over one request: 1 MiB of output, and 32 Mi
	// units of work, a fraction of a second.
	defaultExpansionOutputBytes = 1 << 20
	defaultExpansionWork        = 32 << 20

	// One Starlark run: 10 M bytecode steps are about a second of work; 5 s of wall-clock
	// time; 64 MiB of what its operators and built-ins create, all together.
	defaultStarlarkSteps       = 10_000_000
	defaultStarlarkTimeout     = 5 * time.Second
	defaultStarlarkMemoryBytes = 64 << 20
)

// Limits are the per-request processing limits a server operator may change. They bound what
// one request costs, not whether a stored object is valid, so they are carried per request
// (in a Context, or given to ConsolidateWithin) rather than held in package state. A zero or
// negative field means its default (WithDefaults).
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
	// state makes BuildSlots of it. Zero means the process's shared slots, of
	// DefaultKustomizeBuilds.
	KustomizeBuilds int
	// ExpansionOutputBytes and ExpansionWork bound template expansion over one request, all
	// destinations together. They are applied by the caller of expand, since expand depends
	// on this package and not the other way.
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

// DefaultLimits returns the default of every limit: where the server's flags start.
func DefaultLimits() Limits {
	l := requestDefaults()
	l.KustomizeBuilds = DefaultKustomizeBuilds()
	return l
}

// requestDefaults are the defaults of the limits of one request: all but KustomizeBuilds,
// which is the server's.
func requestDefaults() Limits {
	return Limits{
		KustomizeObjects: defaultKustomizeObjects, KustomizeBytes: defaultKustomizeBytes,
		KustomizeApplications: defaultKustomizeApplications,
		ExpansionOutputBytes:  defaultExpansionOutputBytes, ExpansionWork: defaultExpansionWork,
		TransformerImports: defaultTransformerImports, ImportDepth: defaultImportDepth,
		StarlarkSteps: defaultStarlarkSteps, StarlarkTimeout: defaultStarlarkTimeout,
		StarlarkMemoryBytes: defaultStarlarkMemoryBytes,
	}
}

// WithDefaults returns l with every field that is not positive set to its default, except
// KustomizeBuilds: zero there means the process's shared build slots, which are the default's
// size already.
func (l Limits) WithDefaults() Limits {
	d := requestDefaults()
	return Limits{
		KustomizeObjects:      OrDefault(l.KustomizeObjects, d.KustomizeObjects),
		KustomizeBytes:        OrDefault(l.KustomizeBytes, d.KustomizeBytes),
		KustomizeApplications: OrDefault(l.KustomizeApplications, d.KustomizeApplications),
		KustomizeBuilds:       l.KustomizeBuilds,
		ExpansionOutputBytes:  OrDefault(l.ExpansionOutputBytes, d.ExpansionOutputBytes),
		ExpansionWork:         OrDefault(l.ExpansionWork, d.ExpansionWork),
		TransformerImports:    OrDefault(l.TransformerImports, d.TransformerImports),
		ImportDepth:           OrDefault(l.ImportDepth, d.ImportDepth),
		StarlarkSteps:         OrDefault(l.StarlarkSteps, d.StarlarkSteps),
		StarlarkTimeout:       OrDefault(l.StarlarkTimeout, d.StarlarkTimeout),
		StarlarkMemoryBytes:   OrDefault(l.StarlarkMemoryBytes, d.StarlarkMemoryBytes),
	}
}

// OrDefault returns v, or def when v is not positive: a limit or a timeout left at zero.
func OrDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// SetLimits sets the processing limits the transformers run under; without it, the defaults.
// It returns c, so that it chains after NewContext.
func (c *Context) SetLimits(l Limits) *Context {
	c.limits = l
	return c
}
