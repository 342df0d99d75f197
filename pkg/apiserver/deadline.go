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
	"net/http"
	"sync"

	"k8s.io/apiserver/pkg/endpoints/responsewriter"
)

// quietAfterDeadline keeps the API handlers from writing an answer once their request's
// deadline has passed, so that the answer is the generic server's 504 Timeout.
//
// When storage does not answer in time (etcd stopped or partitioned), the request's deadline
// wakes two goroutines at once: the timeout filter, which answers 504, and the handler, whose
// storage call returns with the deadline's error and which writes an answer of its own. When
// the handler's write comes first, the timeout filter can no longer answer and resets the
// HTTP/2 stream (it panics with http.ErrAbortHandler, by design), and the client sees
// "stream error: INTERNAL_ERROR" instead of a status: one request in eight did in the
// reliability suite's etcd pause. A handler that only starts to answer after its deadline
// leaves the answer to the timeout filter instead. An answer already under way at the
// deadline is still cut off, as before: that window is the length of one write.
func quietAfterDeadline(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); !ok {
			// Long-running requests (watches, proxies) have no deadline and no timeout filter.
			handler.ServeHTTP(w, r)
			return
		}
		handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(&deadlineWriter{ResponseWriter: w, ctx: r.Context()}), r)
	})
}

// deadlineWriter drops an answer that starts after ctx is done.
type deadlineWriter struct {
	http.ResponseWriter
	ctx context.Context

	once    sync.Once
	dropped bool
}

// started decides, at the answer's first byte, whether it goes out.
func (d *deadlineWriter) started() bool {
	d.once.Do(func() { d.dropped = d.ctx.Err() != nil })
	return !d.dropped
}

// WriteHeader passes the status on unless the deadline passed before the answer started.
func (d *deadlineWriter) WriteHeader(code int) {
	if d.started() {
		d.ResponseWriter.WriteHeader(code)
	}
}

// Write passes the body on unless the deadline passed before the answer started.
func (d *deadlineWriter) Write(b []byte) (int, error) {
	if d.started() {
		return d.ResponseWriter.Write(b)
	}
	return 0, http.ErrHandlerTimeout
}

// Unwrap lets WrapForHTTP1Or2 keep the optional interfaces of the writer underneath.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
