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

package renderrest

import (
	"container/list"
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DefaultMemoryBytes is the processing memory of a server that knows no memory limit of its
// own (no GOMEMLIMIT, no cgroup limit), and that was not given one.
const DefaultMemoryBytes = 1 << 30

// maxQueueWait bounds how long a request waits for memory when it has no deadline. With a
// deadline it waits at most a quarter of the time it has left, as API Priority and Fairness
// queues requests, so that it is answered with a 429 and not cut off by the request timeout.
const maxQueueWait = 15 * time.Second

// retryAfterSeconds is the Retry-After of a request that did not get memory, as the API
// server's max-in-flight filter answers.
const retryAfterSeconds = 1

// Budget is the memory a server's processing requests hold together: each holds, before it
// takes it, what it may take (pkg/render's memory model), and gives it back once its answer is
// written. Requests that may run plugins hold from a share of it as well, so that however many
// plugin runs there are, the rest stays for requests without plugins. A request for which
// there is no room waits, in its turn but behind no larger request, and is answered with a 429
// and Retry-After when room does not come soon.
type Budget struct {
	capacity, pluginCapacity int64
	// observe hears what is held after each change; nil for no one.
	observe func(held, pluginHeld int64)

	mu               sync.Mutex
	held, pluginHeld int64
	// waiting holds the *waiter of requests waiting for room, first come first.
	waiting list.List
}

// waiter is one request waiting for room for n bytes of processing and body bytes of body;
// ready is closed once it holds them.
type waiter struct {
	hold    *Hold
	n, body int64
	plugins bool
	ready   chan struct{}
}

// NewProcessingBudget returns the Budget of a server's processing: capacity bytes, or
// DefaultMemoryBytes when capacity is not positive, of which requests that may run plugins
// hold half at most. observe, when not nil, hears what is held after each change.
func NewProcessingBudget(capacity int64, observe func(held, pluginHeld int64)) *Budget {
	if capacity <= 0 {
		capacity = DefaultMemoryBytes
	}
	return NewBudget(capacity, capacity/2, observe)
}

// NewBudget returns a Budget of capacity bytes, of which requests that may run plugins hold
// at most pluginCapacity together (all of it when not in (0, capacity]); observe, when not nil,
// hears what is held after each change. capacity is taken as it is: NewProcessingBudget is the
// one that defaults it.
func NewBudget(capacity, pluginCapacity int64, observe func(held, pluginHeld int64)) *Budget {
	if pluginCapacity <= 0 || pluginCapacity > capacity {
		pluginCapacity = capacity
	}
	return &Budget{capacity: capacity, pluginCapacity: pluginCapacity, observe: observe}
}

// Capacity is the most one request may hold: pluginCapacity for one that may run plugins.
func (b *Budget) Capacity(plugins bool) int64 {
	if plugins {
		return b.pluginCapacity
	}
	return b.capacity
}

// Held returns what is held now, by all requests and by those that may run plugins.
func (b *Budget) Held() (all, plugins int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, b.pluginHeld
}

// Hold is what one request holds of a Budget: what its body and the decoding of it hold
// (Charge), and what its processing holds (Set, Grow, Settle). A request's Hold lives until
// its answer is written (HoldUntilWritten), so that the answer, once built, is still counted
// while it is encoded and sent.
type Hold struct {
	budget *Budget
	// n is what processing holds, body what the body does; plugins says n is held from the
	// plugins' share too. Under budget.mu.
	n, body int64
	plugins bool
}

// NewHold returns a Hold of b that holds nothing yet.
func (b *Budget) NewHold() *Hold { return &Hold{budget: b} }

// Set makes h's processing hold n bytes in place of what it held. When they do not fit
// beside what others hold, h gives back what its processing held and waits for n to fit: a
// request never holds memory for processing while it waits for more (what its body holds, it
// keeps: the body is in memory). The wait is bounded by maxQueueWait and by a quarter of the
// time ctx has left; past it, Set returns a 429 with Retry-After, and when ctx ends first, a
// timeout. A request that needs more than the budget has beside its body is charged what is
// left: it then runs alone.
func (h *Hold) Set(ctx context.Context, n int64, plugins bool) error {
	return h.set(ctx, n, plugins, false)
}

// Grow is Set for processing that already holds what it made: it keeps holding it while it
// waits for n to fit, and after a 429 or a timeout.
func (h *Hold) Grow(ctx context.Context, n int64, plugins bool) error {
	return h.set(ctx, n, plugins, true)
}

func (h *Hold) set(ctx context.Context, n int64, plugins, keep bool) error {
	b := h.budget
	b.mu.Lock()
	n = max(min(n, b.Capacity(plugins), b.capacity-h.body), 0)
	if b.fits(h, n, h.body, plugins) {
		b.take(h, n, h.body, plugins)
		b.mu.Unlock()
		return nil
	}
	if !keep {
		b.take(h, 0, h.body, false)
	}
	return b.wait(ctx, h, n, h.body, plugins)
}

// Charge makes h's body hold n bytes in place of what it held: what reading the request's
// body and decoding it will hold, charged before they allocate it. When n does not fit, h
// waits as Set does, holding what it holds; a body that could never fit, more than the whole
// budget, is refused at once with a 413.
func (h *Hold) Charge(ctx context.Context, n int64) error {
	b := h.budget
	b.mu.Lock()
	if n+h.n > b.capacity {
		b.mu.Unlock()
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"reading and decoding this body would hold %d bytes of the server's processing memory, more than all of it (%d bytes, --processing-memory-bytes): send less in one request",
			n, b.capacity))
	}
	if b.fits(h, h.n, n, h.plugins) {
		b.take(h, h.n, n, h.plugins)
		b.mu.Unlock()
		return nil
	}
	return b.wait(ctx, h, h.n, n, h.plugins)
}

// wait queues h for n bytes of processing and body bytes of body, and waits for them; it is
// called under b.mu and unlocks it.
func (b *Budget) wait(ctx context.Context, h *Hold, n, body int64, plugins bool) error {
	w := &waiter{hold: h, n: n, body: body, plugins: plugins, ready: make(chan struct{})}
	elem := b.waiting.PushBack(w)
	b.mu.Unlock()

	wait := maxQueueWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline)/4)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return nil
	case <-timer.C:
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready:
		// Room came as the wait ended: the request goes on.
		return nil
	default:
	}
	b.waiting.Remove(elem)
	if ctx.Err() != nil {
		return apierrors.NewTimeoutError("the request ended while it waited for memory to be processed", 0)
	}
	if plugins && b.held-h.n-h.body+n+body <= b.capacity {
		return apierrors.NewTooManyRequests(fmt.Sprintf(
			"the processing memory that requests with plugins may hold is taken by other plugin runs (%d of %d bytes, half of --processing-memory-bytes); try again",
			b.pluginHeld, b.pluginCapacity), retryAfterSeconds)
	}
	return apierrors.NewTooManyRequests(fmt.Sprintf(
		"the server's processing memory is taken by other requests (%d of %d bytes, --processing-memory-bytes); try again",
		b.held, b.capacity), retryAfterSeconds)
}

// Settle makes h's processing hold at most n bytes, none of them for plugins, without
// waiting: what a request keeps once processing is done, its answer.
func (h *Hold) Settle(n int64) {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	b.take(h, min(n, h.n), h.body, false)
}

// Release gives back everything h holds.
func (h *Hold) Release() {
	b := h.budget
	b.mu.Lock()
	defer b.mu.Unlock()
	b.take(h, 0, 0, false)
}

// fits reports whether h may hold n bytes of processing and body bytes of body in place of
// what it holds. Under b.mu.
func (b *Budget) fits(h *Hold, n, body int64, plugins bool) bool {
	held, pluginHeld := b.held-h.n-h.body, b.pluginHeld
	if h.plugins {
		pluginHeld -= h.n
	}
	return held+n+body <= b.capacity && (!plugins || pluginHeld+n <= b.pluginCapacity)
}

// take makes h hold n and body, then gives room to the waiters that now fit, first come
// first; one that does not fit lets those behind it go before it. Under b.mu.
func (b *Budget) take(h *Hold, n, body int64, plugins bool) {
	shrank := n+body < h.n+h.body || (h.plugins && (!plugins || n < h.n))
	b.held += n + body - h.n - h.body
	if h.plugins {
		b.pluginHeld -= h.n
	}
	if plugins {
		b.pluginHeld += n
	}
	h.n, h.body, h.plugins = n, body, plugins
	if shrank {
		for e := b.waiting.Front(); e != nil; {
			next := e.Next()
			if w := e.Value.(*waiter); b.fits(w.hold, w.n, w.body, w.plugins) {
				b.waiting.Remove(e)
				b.take(w.hold, w.n, w.body, w.plugins)
				close(w.ready)
			}
			e = next
		}
	}
	if b.observe != nil {
		b.observe(b.held, b.pluginHeld)
	}
}

// holdKey is the context key of a request's Hold.
type holdKey struct{}

// WithHold returns ctx carrying h, for the processing of one request to hold from.
func WithHold(ctx context.Context, h *Hold) context.Context {
	return context.WithValue(ctx, holdKey{}, h)
}

// HoldFrom returns the Hold of ctx, nil when none: a request that processes many times (a
// preview) charges its answer to it and gives each processing a Hold of its own.
func HoldFrom(ctx context.Context) *Hold { return holdFrom(ctx) }

// holdFrom returns the Hold of ctx, nil when none.
func holdFrom(ctx context.Context) *Hold {
	h, _ := ctx.Value(holdKey{}).(*Hold)
	return h
}

// HoldUntilWritten gives each request that may carry a body (POST, PUT, PATCH, DELETE) a Hold
// of b that its body and its processing (a POST: processing is a create) charge, and releases
// it once handler has returned, the answer written: an answer being encoded and sent is
// memory the server holds.
func (b *Budget) HoldUntilWritten(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			handler.ServeHTTP(w, r)
			return
		}
		// The Hold and the context carrying it in one allocation (NewHold and WithHold would
		// be two a request).
		held := &heldRequest{hold: Hold{budget: b}}
		held.carrier = carrier[holdKey, *Hold]{Context: r.Context(), value: &held.hold}
		defer held.hold.Release()
		handler.ServeHTTP(w, r.WithContext(&held.carrier))
	})
}

// heldRequest is a request's Hold and the context carrying it (HoldUntilWritten).
type heldRequest struct {
	hold    Hold
	carrier carrier[holdKey, *Hold]
}
