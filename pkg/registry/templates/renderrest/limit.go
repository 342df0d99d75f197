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
	"fmt"
	"time"

	"golang.org/x/sync/semaphore"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DefaultMaxConcurrent is how many processing requests run at once unless the server is told
// otherwise. One request may take a few hundred MB (the engine's 64 MiB output budget, the
// transformers' trees, the encoded answer): eight at the budget took a local server from 2.3
// to 4.0 GB. Processing is CPU-bound, so more requests at once than cores gain little.
const DefaultMaxConcurrent = 4

// maxQueueWait bounds how long a request waits for its turn when it has no deadline. With a
// deadline it waits at most a quarter of the time it has left, as API Priority and Fairness
// queues requests, so that it is answered with a 429 and not cut off by the request timeout.
const maxQueueWait = 15 * time.Second

// retryAfterSeconds is the Retry-After of a request that did not get its turn, as the API
// server's max-in-flight filter answers.
const retryAfterSeconds = 1

// limiter bounds the processing requests that run at once in this server. In a cluster, API
// Priority and Fairness bounds requests before they get here; in local mode nothing else does.
type limiter struct {
	sem *semaphore.Weighted
	max int
}

func newLimiter(max int) *limiter {
	if max <= 0 {
		max = DefaultMaxConcurrent
	}
	return &limiter{sem: semaphore.NewWeighted(int64(max)), max: max}
}

// acquire waits for a turn; the returned function ends it. A request that waited too long
// gets a 429 with Retry-After; one whose context ended while it waited gets ctx's end as a
// timeout.
func (l *limiter) acquire(ctx context.Context) (func(), error) {
	if l.sem.TryAcquire(1) {
		return l.release, nil
	}
	wait := maxQueueWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline)/4)
	}
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := l.sem.Acquire(waitCtx, 1); err != nil {
		if ctx.Err() != nil {
			return nil, apierrors.NewTimeoutError("the request ended while it waited for its turn to be processed", 0)
		}
		return nil, apierrors.NewTooManyRequests(fmt.Sprintf(
			"the server is processing %d templates at once, its limit (--max-concurrent-processing); try again", l.max), retryAfterSeconds)
	}
	return l.release, nil
}

func (l *limiter) release() { l.sem.Release(1) }
