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
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// shortWait is a context whose wait for memory ends soon, a quarter of its 400 ms, and well
// before the context itself: a request told to retry, not one that ended.
func shortWait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

func wantHeld(t *testing.T, b *Budget, all, plugins int64) {
	t.Helper()
	if gotAll, gotPlugins := b.Held(); gotAll != all || gotPlugins != plugins {
		t.Fatalf("held %d (plugins %d), want %d (plugins %d)", gotAll, gotPlugins, all, plugins)
	}
}

// TestBudgetHoldsBytes: requests hold what they ask for until the budget is full; one that
// does not fit is told to come back (429, Retry-After), or gets a timeout when its request
// ended; a request that grows gives back what it held while it waits, and Settle and Release
// give back without waiting.
func TestBudgetHoldsBytes(t *testing.T) {
	b := NewBudget(100, 50, nil)
	first, second := b.NewHold(), b.NewHold()
	if err := first.Set(context.Background(), 60, false); err != nil {
		t.Fatal(err)
	}
	if err := second.Set(context.Background(), 40, false); err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 100, 0)

	third := b.NewHold()
	err := third.Set(shortWait(t), 1, false)
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("want 429, got %v", err)
	}
	if seconds, ok := apierrors.SuggestsClientDelay(err); !ok || seconds != retryAfterSeconds {
		t.Fatalf("Retry-After %d (%v), want %d", seconds, ok, retryAfterSeconds)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := third.Set(gone, 1, false); !apierrors.IsTimeout(err) {
		t.Fatalf("a request that ended while it waited: want a timeout, got %v", err)
	}

	// Growing past the room: what second held is given back while it waits, so it holds
	// nothing after its 429.
	if err := second.Set(shortWait(t), 50, false); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("want 429, got %v", err)
	}
	wantHeld(t, b, 60, 0)
	// Within the room, in place.
	if err := first.Set(shortWait(t), 90, false); err != nil {
		t.Fatal(err)
	}
	first.Settle(200) // never more than held
	wantHeld(t, b, 90, 0)
	first.Settle(10)
	wantHeld(t, b, 10, 0)
	first.Release()
	second.Release()
	wantHeld(t, b, 0, 0)
}

// TestBudgetWaitersGetRoom: a waiting request gets the room a request gives back; a large
// waiter does not keep a smaller one behind it waiting.
func TestBudgetWaitersGetRoom(t *testing.T) {
	b := NewBudget(100, 100, nil)
	holder := b.NewHold()
	if err := holder.Set(context.Background(), 90, false); err != nil {
		t.Fatal(err)
	}
	large, small := b.NewHold(), b.NewHold()
	largeDone, smallDone := make(chan error, 1), make(chan error, 1)
	go func() { largeDone <- large.Set(context.Background(), 80, false) }()
	waitForWaiters(t, b, 1)
	go func() { smallDone <- small.Set(context.Background(), 30, false) }()
	waitForWaiters(t, b, 2)

	holder.Settle(60) // room for 40: the small one, behind the large one, goes first
	if err := <-smallDone; err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 90, 0)
	holder.Release()
	small.Release()
	if err := <-largeDone; err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 80, 0)
	large.Release()
}

func waitForWaiters(t *testing.T, b *Budget, n int) {
	t.Helper()
	for {
		b.mu.Lock()
		waiting := b.waiting.Len()
		b.mu.Unlock()
		if waiting == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBudgetPluginShare: requests that may run plugins hold at most their share together,
// whatever they ask; a request without plugins still gets the rest while they do, and a plugin
// request's answer (Settle) leaves the share.
func TestBudgetPluginShare(t *testing.T) {
	b := NewBudget(100, 40, nil)
	if got := b.Capacity(true); got != 40 {
		t.Fatalf("plugins' capacity %d, want 40", got)
	}
	plugin := b.NewHold()
	if err := plugin.Set(context.Background(), 1000, true); err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 40, 40) // charged the share: it runs alone
	another := b.NewHold()
	if err := another.Set(shortWait(t), 1, true); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("a second plugin request with the share taken: want 429, got %v", err)
	}
	plain := b.NewHold()
	if err := plain.Set(shortWait(t), 60, false); err != nil {
		t.Fatalf("a request without plugins beside the plugins' share: %v", err)
	}
	wantHeld(t, b, 100, 40)
	plugin.Settle(5)
	wantHeld(t, b, 65, 0)
	if err := another.Set(shortWait(t), 35, true); err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 100, 35)
}

// TestHoldUntilWritten: a POST's processing holds from the Hold the filter gives it until the
// handler, which writes the answer, has returned; methods without a body get none.
func TestHoldUntilWritten(t *testing.T) {
	b := NewBudget(100, 50, nil)
	var during int64
	handler := b.HoldUntilWritten(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := holdFrom(r.Context())
		if r.Method != http.MethodPost {
			if h != nil {
				t.Errorf("a %s got a Hold", r.Method)
			}
			return
		}
		if err := h.Set(r.Context(), 70, false); err != nil {
			t.Error(err)
		}
		h.Settle(30) // processing done: the answer is kept
		_, _ = w.Write([]byte("answer"))
		during, _ = b.Held()
	}))
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, "/", nil))
	}
	if during != 30 {
		t.Fatalf("held %d while the answer was written, want 30", during)
	}
	wantHeld(t, b, 0, 0)
}

// TestBudgetChargesBodies: a request's body holds beside its processing; processing that
// waits gives back only what processing held (the body is in memory), processing that grows
// (Grow) keeps what it made while it waits and after its 429; a body that could never fit is a
// 413 at once; and a request that needs more than the budget has beside its body runs alone.
func TestBudgetChargesBodies(t *testing.T) {
	b := NewBudget(100, 50, nil)
	h, other := b.NewHold(), b.NewHold()
	if err := h.Charge(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	if err := h.Set(context.Background(), 20, false); err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 50, 0)
	if err := other.Set(context.Background(), 40, false); err != nil {
		t.Fatal(err)
	}
	if err := h.Set(shortWait(t), 40, false); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("want 429, got %v", err)
	}
	wantHeld(t, b, 70, 0) // the body's 30 are still held
	if err := h.Set(context.Background(), 20, false); err != nil {
		t.Fatal(err)
	}
	if err := h.Grow(shortWait(t), 40, false); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("want 429, got %v", err)
	}
	wantHeld(t, b, 90, 0) // growing kept what processing had made
	if err := h.Charge(shortWait(t), 50); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("a body that does not fit beside the others: want 429, got %v", err)
	}
	wantHeld(t, b, 90, 0)
	if err := h.Charge(context.Background(), 101); !apierrors.IsRequestEntityTooLargeError(err) {
		t.Fatalf("a body larger than the budget: want 413, got %v", err)
	}
	other.Release()
	if err := h.Set(context.Background(), 1000, false); err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 100, 0) // all that is left beside its body
	h.Settle(10)
	wantHeld(t, b, 40, 0)
	h.Release()
	wantHeld(t, b, 0, 0)
}

// TestBudgetBodyWaiterGetsRoom: a body waiting for room gets it when another request's
// processing gives it back.
func TestBudgetBodyWaiterGetsRoom(t *testing.T) {
	b := NewBudget(100, 100, nil)
	holder, reader := b.NewHold(), b.NewHold()
	if err := holder.Set(context.Background(), 80, false); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- reader.Charge(context.Background(), 50) }()
	waitForWaiters(t, b, 1)
	holder.Settle(50)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantHeld(t, b, 100, 0)
}
