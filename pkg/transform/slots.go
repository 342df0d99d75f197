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
	"runtime"
)

// sharedBuildSlots holds one token per running build of a Context without BuildSlots of its
// own. Builds may run concurrently (see the kustomize package for the one global Kustomize
// keeps); the bound is on the cores they take.
var sharedBuildSlots = &BuildSlots{c: make(chan struct{}, DefaultKustomizeBuilds())}

// BuildSlots bounds the Kustomization builds that run at once. A server makes one and gives it
// to every request's Context (SetBuildSlots), so that its operator may size it; a Context
// without one shares the process's default slots. Its Builder, when set, runs the builds.
type BuildSlots struct {
	c       chan struct{}
	builder Builder
}

// Builder runs one Kustomization build where it can be stopped: Kustomize takes no context, so
// a build in the request's own process runs to its end whether anyone still waits for it. The
// server's builds run in worker processes (kustomize.Workers), killed when their request ends.
// kustomization and objects are the files krusty reads; sortOptions says the kustomization
// orders its output itself.
type Builder interface {
	Build(ctx context.Context, kustomization, objects []byte, sortOptions bool) ([]Object, error)
}

// SetBuilder makes b run the builds of s; nil runs them in the request's goroutine. It returns
// s, so that it chains after NewBuildSlots.
func (s *BuildSlots) SetBuilder(b Builder) *BuildSlots {
	s.builder = b
	return s
}

// Builder is what runs the builds of s, nil for the request's own goroutine.
func (s *BuildSlots) Builder() Builder { return s.builder }

// NewBuildSlots returns n slots; n below 1 means DefaultKustomizeBuilds.
func NewBuildSlots(n int) *BuildSlots {
	if n < 1 {
		n = DefaultKustomizeBuilds()
	}
	return &BuildSlots{c: make(chan struct{}, n)}
}

// DefaultKustomizeBuilds is the default number of concurrent builds: half the cores the
// process may use, but two at least so that one slow build does not hold up every other.
func DefaultKustomizeBuilds() int { return max(2, runtime.GOMAXPROCS(0)/2) }

// SetBuildSlots makes the Kustomization builds of c take their turns from slots. It returns
// c, so that it chains after NewContext.
func (c *Context) SetBuildSlots(slots *BuildSlots) *Context {
	c.buildSlots = slots
	return c
}

// BuildSlots returns the build slots the Context's builds take: its own, or the process's.
func (c *Context) BuildSlots() *BuildSlots {
	if c.buildSlots != nil {
		return c.buildSlots
	}
	return sharedBuildSlots
}

// Acquire waits for a slot, or for ctx's request to end.
func (s *BuildSlots) Acquire(ctx *Context) error {
	select {
	case s.c <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Both may be ready at once, and select picks either: a request that ended does not build.
	if err := ctx.Err(); err != nil {
		<-s.c
		return err
	}
	return nil
}

// Release gives back a slot Acquire took.
func (s *BuildSlots) Release() { <-s.c }

// Cap is how many builds may run at once.
func (s *BuildSlots) Cap() int { return cap(s.c) }

// InUse is how many slots are taken now.
func (s *BuildSlots) InUse() int { return len(s.c) }
