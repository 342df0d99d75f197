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
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform/plugin"
)

// Memory is charged with the memory one request's processing may hold, before processing
// takes it (docs/operations.md, "Memory"). A server shares one among all its requests.
type Memory interface {
	// Hold makes the request hold n bytes, in place of what it held before, waiting for room
	// when there is none; plugins says the request may run plugins, which hold memory from a
	// share of their own as well. An error ends processing, and Render returns it as it is.
	Hold(ctx context.Context, n int64, plugins bool) error
	// Grow is Hold for a request whose processing holds what it made so far: it keeps holding
	// it while it waits, and after an error.
	Grow(ctx context.Context, n int64, plugins bool) error
	// Capacity is the most one request may hold, with or without plugins: processing that
	// would need more is not done.
	Capacity(plugins bool) int64
}

// The memory model: what one attempt at processing with an output limit of b bytes may hold
// at its peak, in multiples of b, measured on the shapes that cost most per byte of JSON
// (pkg/render's TestMemoryModelBoundsProcessing measures them again).
const (
	// plainFactor covers processing without trees: the engine's output, the buffer it grows
	// in (a quarter more, and the old one while it grows) and the values in their written
	// forms. Measured: 2.9 (one large string) to 3.7 (400,000 small objects).
	plainFactor = 5
	// treeFactor covers processing whose objects are decoded for transformers,
	// CustomTransforms, expansion or destinations: the trees (one map entry or slice element
	// per JSON value), the engine's output beside them and the encoded result. Measured: 18
	// (ConfigMaps of short strings) to 30-35 (arrays of one-digit numbers, empty objects).
	treeFactor = 40
	// templateFactor covers compiling the template's objects and configs into a plan, per byte
	// of them.
	templateFactor = 4
	// kustomizeFactor covers one inline Kustomization build, per byte of the objects it runs
	// over (at most --max-kustomize-bytes): kyaml's nodes of them, and of its output.
	// Measured, with the request's trees: 10.5 on 1,000 ConfigMaps of 100 strings of 25
	// bytes, 72 on 1,000 of 380 one-byte strings (4 MiB, the default limit).
	kustomizeFactor = 64
	// execOutputFactor covers one exec plugin run, per byte it may write: stdout and stderr,
	// each up to the plugin output limit, and the trees of stdout, which take six (JSON) to
	// sixteen (YAML) times its size.
	execOutputFactor = 2 + 16
)

// How a request's output limit grows: processing starts with firstAttemptBytes and, each
// time its output passes the limit, asks its Memory for tierGrowth times more (Grow), up to
// the request's limit, so that a request holds about what its output needs and not what the
// largest output could, and is processed once whatever its output.
const (
	firstAttemptBytes = 1 << 20
	tierGrowth        = 4
)

// cost is what one attempt at processing a request may hold, as a function of the attempt's
// output limit.
type cost struct {
	// trees says the objects are decoded.
	trees bool
	// plugins says a plugin may run.
	plugins bool
	// fixed is what does not depend on the attempt's limit: the plan, an exec plugin's
	// output, a Starlark run's own memory.
	fixed int64
	// perByte is what one byte of the attempt's limit costs.
	perByte int64
	// kustomizeBytes is the most a Kustomization builds over: the smaller of it and the
	// attempt's limit costs kustomizeFactor per byte. Zero without a Kustomization.
	kustomizeBytes int
}

// costOf reads what processing may hold: steps are the kinds of the consolidated template's
// steps, templateBytes its objects' and configs' size, trees whether the objects are decoded
// even without steps (CustomTransforms, destinations, expansion).
func (p *Renderer) costOf(steps plugin.Steps, templateBytes int, trees bool, plugins plugin.Policy) cost {
	c := cost{trees: trees || steps.Any, plugins: steps.Plugins(), fixed: templateFactor * int64(templateBytes), perByte: plainFactor}
	if c.trees {
		c.perByte = treeFactor
	}
	// The steps run one after another, so the costliest kind is what the request may hold
	// besides its objects; each is counted whole all the same, as a bound.
	if steps.Kustomization {
		c.kustomizeBytes = p.config.Limits.KustomizeBytes
	}
	if steps.Starlark {
		// The objects as Starlark values, and what the script itself may create.
		c.perByte += treeFactor
		c.fixed += int64(p.config.Limits.StarlarkMemoryBytes)
	}
	if steps.Exec {
		c.fixed += execOutputFactor * int64(plugins.PluginOutputBytes())
	}
	return c
}

// withProvenance adds what provenance holds: the objects are decoded, a step's snapshot of
// them is another tree beside them, and the fields' records are charged for the bound.
func (c *cost) withProvenance(o *ProvenanceOptions) {
	if !c.trees {
		c.trees, c.perByte = true, c.perByte-plainFactor+treeFactor
	}
	c.perByte += treeFactor
	c.fixed += provenanceFieldBytes * int64(fieldsBound(o.MaxFields))
}

// at is the cost of an attempt with an output limit of b bytes.
func (c cost) at(b int) int64 {
	return c.fixed + c.perByte*int64(b) + kustomizeFactor*int64(min(c.kustomizeBytes, b))
}

// largestWithin is the largest output limit, at most budget, whose attempt costs at most
// capacity; 0 when none does.
func (c cost) largestWithin(capacity int64, budget int) int {
	if c.at(budget) <= capacity {
		return budget
	}
	lo, hi := 0, budget // c.at(lo) fits or lo is 0; c.at(hi) does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if c.at(mid) <= capacity {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// renderWithin processes the request once, charging in.Memory before it allocates: first
// for an output limit of firstAttemptBytes, then, each time the output passes the limit (in
// the engine, a transformer, destinations), for tierGrowth times more (Memory.Grow), up to the
// request's limit (budget) or the largest limit whose charge fits in.Memory's capacity,
// whichever is smaller: past it, the answer is a problem naming the limit reached.
//
// The first charge is made before the template is compiled, which it counts.
func (p *Renderer) renderWithin(ctx context.Context, in Input, a attemptOf, budget int) (*Output, field.ErrorList, error) {
	t := a.template
	look := p.lookupPlan(t, in.Stored, importsKey(a.imported))
	trees := len(in.RemovalRules) > 0 || len(in.Destinations) > 0 || look.objectsExpand(t)
	c := p.costOf(in.Plugins.Steps(t), templateBytes(t), trees, in.Plugins)
	capacity := in.Memory.Capacity(c.plugins)
	if in.Provenance != nil {
		// The fields' records may take at most a quarter of what one request may hold, so
		// that a request with provenance still fits: past that many fields it is refused.
		bounded := *in.Provenance
		bounded.MaxFields = min(fieldsBound(bounded.MaxFields), int(capacity/4/provenanceFieldBytes))
		in.Provenance = &bounded
		c.withProvenance(&bounded)
	}
	// A request whose smallest charge is more than the capacity (a plugin's bounds larger
	// than the plugins' share) is charged the capacity: it then runs alone.
	first := min(firstAttemptBytes, budget)
	a.largest = max(c.largestWithin(capacity, budget), first)
	a.limit = first
	a.tiers = &tiers{ctx: ctx, memory: in.Memory, cost: c, capacity: capacity, a: &a}
	if err := in.Memory.Hold(ctx, a.tiers.charge(), c.plugins); err != nil {
		return nil, nil, err
	}
	plan, errs := p.compile(t, in, look)
	if len(errs) > 0 {
		return nil, errs, nil
	}
	a.plan = plan
	r := p.attempt(ctx, in, &a)
	plan.Dispose() // as Render does
	return r.output, r.errs, r.err
}

// tiers raises a request's output limit and its charge as renderWithin describes. It is one
// object per request, so that charging costs no closures.
type tiers struct {
	ctx      context.Context
	memory   Memory
	cost     cost
	capacity int64
	a        *attemptOf
	// refused is the memory's answer to a raise the engine asked for (growEngine), which
	// can only answer a limit.
	refused error
}

// charge is what the attempt's limit costs.
func (t *tiers) charge() int64 { return min(t.cost.at(t.a.limit), t.capacity) }

// grow raises the limit for an output of size bytes, up to the largest, charging for it.
func (t *tiers) grow(size int) (int, error) {
	a := t.a
	if size > a.largest {
		return a.limit, nil
	}
	next := min(max(a.limit*tierGrowth, size), a.largest)
	if err := t.memory.Grow(t.ctx, min(t.cost.at(next), t.capacity), t.cost.plugins); err != nil {
		return a.limit, err
	}
	a.limit = next
	return next, nil
}

// growEngine is grow for the engine (process.Request.Grow), keeping the first refusal.
func (t *tiers) growEngine(size int) int {
	limit, err := t.grow(size)
	if err != nil && t.refused == nil {
		t.refused = err
	}
	return limit
}

// decoding charges for the objects' trees before they are decoded, when the charge did not
// count them: parameter values made the engine's output ask for expansion.
func (t *tiers) decoding() error {
	if t.cost.trees {
		return nil
	}
	t.cost.trees, t.cost.perByte = true, t.cost.perByte-plainFactor+treeFactor
	return t.memory.Grow(t.ctx, t.charge(), t.cost.plugins)
}

// templateBytes is the size of what compiling t reads.
func templateBytes(t *templates.Template) int {
	n := 0
	for _, list := range [][]runtime.RawExtension{t.Objects, t.Generators, t.Transformers} {
		for _, raw := range list {
			n += len(raw.Raw)
		}
	}
	return n
}
