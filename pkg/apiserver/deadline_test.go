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
	"net/http/httptest"
	"testing"
	"time"
)

func TestQuietAfterDeadline(t *testing.T) {
	answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("storage: context deadline exceeded"))
	})
	cases := []struct {
		name     string
		deadline time.Duration // from now; 0 for none
		wantBody string
	}{
		{"before the deadline", time.Hour, "storage: context deadline exceeded"},
		{"without a deadline (long-running)", 0, "storage: context deadline exceeded"},
		// The timeout filter answers 504 instead, which it can only do if nothing was written.
		{"after the deadline", -time.Second, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/apis/templates.stencil.dev/v1alpha1/templates", nil)
			if tc.deadline != 0 {
				ctx, cancel := context.WithDeadline(r.Context(), time.Now().Add(tc.deadline))
				defer cancel()
				r = r.WithContext(ctx)
			}
			w := httptest.NewRecorder()
			quietAfterDeadline(answer).ServeHTTP(w, r)
			if got := w.Body.String(); got != tc.wantBody {
				t.Fatalf("body %q, want %q", got, tc.wantBody)
			}
			if tc.wantBody == "" && w.Code != http.StatusOK {
				// The recorder's default: no status was written.
				t.Fatalf("a status was written after the deadline: %d", w.Code)
			}
		})
	}
}
