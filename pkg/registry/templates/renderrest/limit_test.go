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
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestLimiter(t *testing.T) {
	l := newLimiter(2)
	first, err := l.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	second, err := l.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	// Full: a request with little time left is told to come back, not queued until its end.
	short, cancel := context.WithTimeout(context.Background(), 40*time.Millisecond)
	defer cancel()
	_, err = l.acquire(short)
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("want 429, got %v", err)
	}
	if seconds, ok := apierrors.SuggestsClientDelay(err); !ok || seconds != retryAfterSeconds {
		t.Fatalf("Retry-After %d (%v), want %d", seconds, ok, retryAfterSeconds)
	}

	// A request that ended while it waited is not a 429: nobody is there to retry.
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	if _, err := l.acquire(gone); !apierrors.IsTimeout(err) {
		t.Fatalf("want a timeout, got %v", err)
	}

	// A waiting request gets the turn that ends.
	got := make(chan error, 1)
	go func() {
		release, err := l.acquire(context.Background())
		if err == nil {
			release()
		}
		got <- err
	}()
	first()
	if err := <-got; err != nil {
		t.Fatalf("the waiting request: %v", err)
	}
	second()

	// Every turn was given back.
	for range 2 {
		if !l.sem.TryAcquire(1) {
			t.Fatal("a turn was not released")
		}
	}
}

func TestLimiterDefault(t *testing.T) {
	if l := newLimiter(0); l.max != DefaultMaxConcurrent {
		t.Fatalf("max %d, want %d", l.max, DefaultMaxConcurrent)
	}
}
