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

package apiserver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// withDeadlineOnDemand is context.WithDeadline(parent, deadline) that starts its timer only
// when something waits for it: the first call of Done (a select, a child context that can be
// canceled, context.AfterFunc) makes the context.WithDeadline it then stands for. Until then
// Err reads the clock, and a processing request, which only asks Err between its steps, never
// starts one. The create handler bounds every request's time with context.WithTimeout: its
// context, a timer started and stopped, four allocations and about 3,000 instructions a
// request, a twentieth of what the server adds to the engine's work on a small template.
//
// It answers as the context.WithDeadline would: Deadline is the earlier of deadline and the
// parent's; Err is nil, then the parent's error or context.DeadlineExceeded once the deadline
// has passed, or context.Canceled once cancel is called, and keeps the first it gave;
// context.Cause answers Err (or the parent's cause, as for any context: it asks Value for the
// nearest context package's own); Value is the parent's.
func withDeadlineOnDemand(parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	c := &onDemandDeadline{}
	return c.start(parent, deadline), c.cancel
}

// start makes the zero c the context withDeadlineOnDemand returns (for a c inside a larger
// allocation; c.cancel is its cancel).
func (c *onDemandDeadline) start(parent context.Context, deadline time.Time) context.Context {
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.parent, c.deadline = parent, deadline
	return c
}

type onDemandDeadline struct {
	parent   context.Context
	deadline time.Time
	// timed is the context.WithDeadline made by the first Done; read without the lock by
	// Value, which the request's steps ask often.
	timed atomic.Pointer[timedContext]

	mu sync.Mutex
	// err is the first error Err gave or cancel set, kept: a context's error never changes.
	err error
}

type timedContext struct {
	context.Context
	cancel context.CancelFunc
}

func (c *onDemandDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

// Done is the done channel of the context.WithDeadline made on its first call.
func (c *onDemandDeadline) Done() <-chan struct{} {
	return c.started().Done()
}

// started returns the context.WithDeadline, made on the first call; canceled at once if
// cancel was called before.
func (c *onDemandDeadline) started() context.Context {
	if t := c.timed.Load(); t != nil {
		return t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.timed.Load(); t != nil {
		return t
	}
	ctx, cancel := context.WithDeadline(c.parent, c.deadline)
	if c.err == context.Canceled {
		cancel()
	}
	t := &timedContext{Context: ctx, cancel: cancel}
	c.timed.Store(t)
	return t
}

func (c *onDemandDeadline) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errLocked()
}

// errLocked is Err, with c.mu held.
func (c *onDemandDeadline) errLocked() error {
	if c.err != nil {
		return c.err
	}
	if t := c.timed.Load(); t != nil {
		c.err = t.Err()
	} else if err := c.parent.Err(); err != nil {
		c.err = err
	} else if !time.Now().Before(c.deadline) {
		c.err = context.DeadlineExceeded
	}
	return c.err
}

// Value is the parent's (or the context.WithDeadline's, once made, which holds its own
// cancel state for context.Cause and for the children that wait on it, and the parent's
// values).
func (c *onDemandDeadline) Value(key any) any {
	if t := c.timed.Load(); t != nil {
		return t.Value(key)
	}
	return c.parent.Value(key)
}

// cancel ends the context, as a context.WithDeadline's cancel does (its error is
// context.Canceled unless it had one already), and stops the timer if one started.
func (c *onDemandDeadline) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.timed.Load(); t != nil {
		t.cancel()
	}
	if c.errLocked() == nil {
		c.err = context.Canceled
	}
}
