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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

// bodyChain is the innermost part of the server's chain over inner: a deadline as the
// timeout filter sets it (none when timeout is 0), the Hold, the body reader.
func bodyChain(budget *renderrest.Budget, timeout time.Duration, maxBytes int64, inner http.Handler) http.Handler {
	bodies := withBodies(inner, maxBytes, Codecs, nil).(*bodyReader)
	bodies.grace = 200 * time.Millisecond
	held := budget.HoldUntilWritten(bodies)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if timeout > 0 {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer cancel()
			r = r.WithContext(ctx)
		}
		held.ServeHTTP(w, r)
	})
}

// seen is what the API handler was given.
type seen struct {
	body        []byte
	contentType string
	held        int64
	// conversion is what the filter kept of a YAML body's conversion: "" for nothing, else
	// the JSON, and for a body left as YAML its strict words.
	conversion string
}

func recordingHandler(budget *renderrest.Budget, got *seen) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.conversion = ""
		if c := bodyConversion(r); c != nil {
			got.conversion = string(c.json)
			if c.kept {
				got.conversion += fmt.Sprintf(" kept, words %v", c.strict)
			}
		}
		got.body, _ = io.ReadAll(r.Body)
		got.contentType = r.Header.Get("Content-Type")
		got.held, _ = budget.Held()
		w.WriteHeader(http.StatusCreated)
	})
}

func post(t *testing.T, h http.Handler, contentType string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/apis/templates.stencil.dev/v1alpha1/namespaces/a/processedtemplates", body)
	r.Header.Set("Content-Type", contentType)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestBodiesAreChargedAndConverted: a body is charged to its request's Hold before the API
// handler reads it, as its cost (bytes and tokens) says, and given back once the answer is
// written; a YAML body reaches the handler as the JSON it reads as, bounded, unless that would
// lose something (repeated keys, several documents), when it is left for the decoder.
func TestBodiesAreChargedAndConverted(t *testing.T) {
	budget := renderrest.NewBudget(1<<30, 1<<29, nil)
	jsonBody := []byte(`{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","objects":[{},{},{}]}`)
	cases := []struct {
		name, contentType, body string
		wantType, wantBody      string
		wantHeld                int64
		// wantConversion is what the filter keeps of the conversion (seen.conversion).
		wantConversion string
	}{
		{"JSON", "application/json", string(jsonBody), "application/json", string(jsonBody), bodyCost(jsonBody, jsonBody), ""},
		{"YAML", "application/yaml", "kind: Template\nobjects: [{}, {}, {}]\n", "application/json", `{"kind":"Template","objects":[{},{},{}]}`,
			bodyCost([]byte(`{"kind":"Template","objects":[{},{},{}]}`), []byte(`{"kind":"Template","objects":[{},{},{}]}`)), `{"kind":"Template","objects":[{},{},{}]}`},
		{"YAML with aliases", "application/yaml; charset=utf-8", "a: &x [1, 2]\nb: *x\n", "application/json", `{"a":[1,2],"b":[1,2]}`, -1, `{"a":[1,2],"b":[1,2]}`},
		{"YAML after an empty document", "application/yaml", "---\n# comment\n---\nkind: T\n", "application/json", `{"kind":"T"}`, -1, `{"kind":"T"}`},
		// Left as YAML for the YAML decoder, its conversion and words kept for the processing
		// handler.
		{"YAML repeating a key", "application/yaml", "a: 1\na: 2\n", "application/yaml", "a: 1\na: 2\n", -1,
			`{"a":2} kept, words yaml: unmarshal errors:` + "\n" + `  line 2: key "a" already set in map`},
		{"YAML repeating a key after an empty document", "application/yaml", "---\na: 1\na: 2\n", "application/yaml", "---\na: 1\na: 2\n", -1, ""},
		{"two YAML documents", "application/yaml", "a: 1\n---\nb: 2\n", "application/yaml", "a: 1\n---\nb: 2\n", -1, ""},
		{"an apply patch", "application/apply-patch+yaml", "kind: T\np: &a 1\nq: *a\n", "application/apply-patch+yaml", `{"kind":"T","p":1,"q":1}`, -1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got seen
			w := post(t, bodyChain(budget, time.Minute, 3<<20, recordingHandler(budget, &got)), tc.contentType, strings.NewReader(tc.body))
			if w.Code != http.StatusCreated {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if string(got.body) != tc.wantBody || got.contentType != tc.wantType {
				t.Errorf("the handler read %q as %s, want %q as %s", got.body, got.contentType, tc.wantBody, tc.wantType)
			}
			if got.conversion != tc.wantConversion {
				t.Errorf("the filter kept the conversion %q, want %q", got.conversion, tc.wantConversion)
			}
			if tc.wantHeld >= 0 && got.held != tc.wantHeld {
				t.Errorf("held %d while the handler ran, want %d", got.held, tc.wantHeld)
			}
			if got.held < int64(len(tc.body)) {
				t.Errorf("held %d while the handler ran, less than the body's %d bytes", got.held, len(tc.body))
			}
			if all, _ := budget.Held(); all != 0 {
				t.Errorf("%d bytes still held after the answer", all)
			}
		})
	}
}

// TestBodiesRefused: what cannot be read within the bounds gets a clear status before any
// decoder sees it: a body past the server's limit (said or not said in Content-Length), a YAML
// body whose aliases expand it past positions.MaxJSONBytes (a 413 naming the expansion), a
// body whose decoding would hold more than the whole budget (413) or more than is free now
// (429 with Retry-After).
func TestBodiesRefused(t *testing.T) {
	bomb := "a: &a " + strings.Repeat("x", 1<<20) + "\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", 500), ", ") + "]\n"
	cases := []struct {
		name, contentType string
		body              io.Reader
		capacity          int64
		taken             int64
		status            int
		says              string
	}{
		{"past the limit", "application/json", bytes.NewReader(make([]byte, 4<<20)), 1 << 30, 0, http.StatusRequestEntityTooLarge, "limit is 3145728"},
		{"past the limit, chunked", "application/json", io.MultiReader(bytes.NewReader(make([]byte, 4<<20))), 1 << 30, 0, http.StatusRequestEntityTooLarge, "limit is 3145728"},
		{"1 MB aliased 500 times", "application/yaml", strings.NewReader(bomb), 1 << 30, 0, http.StatusRequestEntityTooLarge, "aliases expand"},
		{"1 MB aliased 500 times, an apply patch", "application/apply-patch+yaml", strings.NewReader(bomb), 1 << 30, 0, http.StatusRequestEntityTooLarge, "aliases expand"},
		{"more than the whole budget", "application/json", strings.NewReader(`[` + strings.Repeat(`{},`, 100_000) + `{}]`), 8 << 20, 0, http.StatusRequestEntityTooLarge, "more than all of it"},
		{"more than is free", "application/json", strings.NewReader(`{"kind":"Template"}`), 8 << 20, 8<<20 - 100, http.StatusTooManyRequests, "taken by other requests"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			budget := renderrest.NewBudget(tc.capacity, tc.capacity/2, nil)
			other := budget.NewHold()
			if err := other.Set(context.Background(), tc.taken, false); err != nil {
				t.Fatal(err)
			}
			defer other.Release()
			called := false
			inner := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })
			w := post(t, bodyChain(budget, 400*time.Millisecond, 3<<20, inner), tc.contentType, tc.body)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.says) {
				t.Fatalf("%d %s, want %d saying %q", w.Code, w.Body, tc.status, tc.says)
			}
			var status struct{ Kind, Status string }
			if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil || status.Kind != "Status" || status.Status != "Failure" {
				t.Errorf("the answer is not a Status: %s", w.Body)
			}
			if tc.status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
				t.Error("a 429 without Retry-After")
			}
			if called {
				t.Error("the API handler was called")
			}
			if all, _ := budget.Held(); all != tc.taken {
				t.Errorf("%d bytes held after the refusal, want the other request's %d", all, tc.taken)
			}
		})
	}
}

// slowBody sends one byte every interval until closed: a slow-loris upload.
type slowBody struct {
	interval time.Duration
	closed   atomic.Bool
}

func (s *slowBody) Read(p []byte) (int, error) {
	if s.closed.Load() {
		return 0, io.EOF
	}
	time.Sleep(s.interval)
	p[0] = '{'
	return 1, nil
}

func (s *slowBody) Close() error { s.closed.Store(true); return nil }

// TestDeadlinesEndBodiesAndAnswers: over real connections (HTTP/1.1 and HTTP/2), a client that
// uploads a byte at a time, with or without Content-Length, holds the budget until its
// request's deadline and no longer; a client that never reads its answer holds what the answer
// holds until a little after the deadline (the write fails), not until it goes away; and an
// HTTP/1.1 connection that served a request with a deadline serves one without (a watch)
// whose answer comes later than that deadline.
func TestDeadlinesEndBodiesAndAnswers(t *testing.T) {
	for _, http2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("HTTP/2 %v", http2), func(t *testing.T) {
			budget := renderrest.NewBudget(1<<30, 1<<29, nil)
			returned := make(chan time.Duration, 4)
			answer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/watch" {
					time.Sleep(time.Second)
					_, _ = w.Write([]byte("late but whole"))
					return
				}
				_, _ = io.Copy(io.Discard, r.Body)
				// A 64 MiB answer, charged, written to whoever asked.
				hold := renderrest.HoldFrom(r.Context())
				if err := hold.Set(r.Context(), 64<<20, false); err != nil {
					t.Error(err)
					return
				}
				chunk := make([]byte, 1<<20)
				for range 64 {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			})
			chain := bodyChain(budget, 0, 3<<20, answer)
			// took waits for the server's handler to return, at most 10 s: past the deadline
			// and its grace, a handler that has not returned holds what it holds until the
			// client goes away.
			took := func(what string) time.Duration {
				select {
				case d := <-returned:
					t.Logf("%s: the handler returned after %v", what, d.Round(time.Millisecond))
					return d
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: the handler has not returned 10 s after its 500 ms deadline", what)
					return 0
				}
			}
			server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				start := time.Now()
				if r.URL.Path != "/watch" {
					ctx, cancel := context.WithTimeout(r.Context(), 500*time.Millisecond)
					defer cancel()
					r = r.WithContext(ctx)
				}
				chain.ServeHTTP(w, r)
				returned <- time.Since(start)
			}))
			server.EnableHTTP2 = http2
			server.StartTLS()
			// Cleanups run last first: the clients below go away before the server closes,
			// which waits for its handlers.
			t.Cleanup(server.Close)
			client := server.Client()

			for _, withLength := range []bool{true, false} {
				body := &slowBody{interval: 50 * time.Millisecond}
				t.Cleanup(func() { body.Close() })
				req, _ := http.NewRequest(http.MethodPost, server.URL+"/upload", body)
				if withLength {
					req.ContentLength = 1 << 20
				}
				req.Header.Set("Content-Type", "application/json")
				go func() {
					if resp, err := client.Do(req); err == nil {
						resp.Body.Close()
					}
				}()
				d := took(fmt.Sprintf("a slow upload (Content-Length %v)", withLength))
				body.Close()
				if d > 3*time.Second {
					t.Errorf("a slow upload (Content-Length %v) was read for %v, past its 500 ms deadline", withLength, d)
				}
				if all, _ := budget.Held(); all != 0 {
					t.Errorf("a slow upload holds %d bytes after its request ended", all)
				}
			}

			req, _ := http.NewRequest(http.MethodPost, server.URL+"/answer", strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { resp.Body.Close() })
			// The client reads nothing: the handler's writes block on the connection.
			d := took("an answer nobody reads")
			resp.Body.Close()
			if d > 3*time.Second {
				t.Errorf("an answer nobody reads was written for %v, past its deadline and grace", d)
			}
			if all, _ := budget.Held(); all != 0 {
				t.Errorf("an answer nobody reads holds %d bytes after its request ended", all)
			}

			if !http2 {
				// The same kind of connection, first a request with a deadline, then a watch.
				c := &http.Client{Transport: client.Transport.(*http.Transport).Clone()}
				c.Transport.(*http.Transport).MaxConnsPerHost = 1
				for _, path := range []string{"/answer", "/watch"} {
					req, _ := http.NewRequest(http.MethodPost, server.URL+path, strings.NewReader("{}"))
					resp, err := c.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					got, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					took(path)
					if path == "/watch" && (err != nil || string(got) != "late but whole") {
						t.Errorf("a watch after a request with a deadline, on its connection: %q, %v", got, err)
					}
				}
			}
		})
	}
}
