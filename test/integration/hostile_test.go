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

package integration

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// maxServerMemory bounds the server's peak resident memory over the whole hostile run, its
// embedded etcd included.
const maxServerMemory = 1536 << 20

// hostileConcurrency is how many heavy requests the hostile server's processing memory
// (--processing-memory-bytes) holds at once, below the burst of heavy requests it gets. The
// fixtures hold a CustomTransform, so every request's objects are decoded: a heavy request's
// last attempt, at an output limit of 16 MiB, is charged 40 bytes per byte of it, and 4 per
// byte of its 1 MiB template (docs/operations.md, Memory).
const hostileConcurrency = 2

// hostileMemory is the hostile server's --processing-memory-bytes.
const hostileMemory = hostileConcurrency * (40*16 + 8) << 20

// TestHostileInputs sends the hostile table (every finding of issue 17, and each malformed
// body to every endpoint and content type) to a server of its own, then a burst of requests
// at the output budget. The server must answer every request with the expected status, never
// with a 5xx or by dropping the connection, never panic, stay ready and stay below
// maxServerMemory.
func TestHostileInputs(t *testing.T) {
	s := startTestServer(t, filepath.Join(t.TempDir(), "hostile"), "--processing-memory-bytes="+strconv.Itoa(hostileMemory))
	client := s.httpClient(t)
	setupHostileFixtures(t, s)

	cases := append(generatedCases(), specificCases()...)
	type timing struct {
		name    string
		elapsed time.Duration
	}
	var timings []timing
	serverErrors, libraryPanics := 0, 0
	for _, tc := range cases {
		if tc.libraryPanic {
			libraryPanics++
		}
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			resp, err := s.do(context.Background(), client, tc.method, tc.path, tc.contentType, tc.body)
			timings = append(timings, timing{tc.name, time.Since(start)})
			if err != nil {
				serverErrors++
				t.Fatalf("no answer: %v", err)
			}
			if resp.status >= 500 {
				serverErrors++
			}
			if !statusMatches(resp.status, tc.want) {
				t.Fatalf("status %d, want %s: %.400s", resp.status, wantText(tc.want), resp.body)
			}
		})
	}
	burst := heavyBurst(t, s, client)

	if serverErrors > 0 {
		t.Errorf("%d requests got a 5xx or no answer", serverErrors)
	}
	if resp := s.mustDo(t, "GET", "/readyz", "", nil); resp.status != http.StatusOK {
		t.Errorf("/readyz after the run: %d %s", resp.status, resp.body)
	}
	// The API server logs "Observed a panic" for a panic that reached its handler; a patch
	// that makes the patch library panic is refused, and logged so (see registry.CheckedUpdate).
	if panics := s.logMentions(t, "Observed a panic", "panic: "); len(panics) > 0 {
		t.Errorf("the server panicked %d times: %s", len(panics), panics[0])
	}
	if recovered := s.logMentions(t, "Refused a patch that the patch machinery could not apply"); len(recovered) != libraryPanics {
		t.Errorf("%d patches refused after a library panic, want %d", len(recovered), libraryPanics)
	}
	peak := peakRSS(t, s.Pid())
	if peak > maxServerMemory {
		t.Errorf("the server's peak resident memory is %d MiB, above %d MiB", peak>>20, maxServerMemory>>20)
	}
	slices.SortFunc(timings, func(a, b timing) int { return int(b.elapsed - a.elapsed) })
	var slowest []string
	for _, tm := range timings[:min(5, len(timings))] {
		slowest = append(slowest, fmt.Sprintf("%s %v", tm.name, tm.elapsed.Round(time.Millisecond)))
	}
	t.Logf("%d hostile requests and a burst of %d (%s); peak memory %d MiB; slowest: %s",
		len(cases), burst.total, burst, peak>>20, strings.Join(slowest, "; "))
}

func statusMatches(got, want int) bool {
	switch want {
	case any2xx:
		return got/100 == 2
	case any4xx:
		return got/100 == 4
	}
	return got == want
}

func wantText(want int) string {
	switch want {
	case any2xx:
		return "a 2xx"
	case any4xx:
		return "a 4xx"
	}
	return strconv.Itoa(want)
}

// setupHostileFixtures stores what the hostile requests update and process.
func setupHostileFixtures(t *testing.T, s *localServer) {
	t.Helper()
	fixtures := []struct{ path, body string }{
		{apiPath(hostileNS, "templates"), tpl(fixtureTemplate, `,"parameters":[{"name":"P","value":"x"}]`+objects(configMap(`{"a":"${P}"}`)))},
		{apiPath(hostileNS, "templates"), tpl("expander", objects(expanding(`"{{.p}}{{.p}}"`)))},
		{apiPath(hostileNS, "templates"), tpl("amplifier", `,"parameters":[{"name":"P"}]`+objects(configMap(`{"a":"`+strings.Repeat("${P}", 5000)+`"}`)))},
		{"/apis/templates.stencil.dev/v1alpha1/customtransforms", customTransform(fixtureCT, pathsSpec(1, 10))},
	}
	for _, f := range fixtures {
		if resp := s.mustDo(t, "POST", f.path, ctJSON, []byte(f.body)); resp.status != http.StatusCreated {
			t.Fatalf("storing a fixture: %d %.300s", resp.status, resp.body)
		}
	}
}

// burstResult counts the answers of a burst.
type burstResult struct {
	total, created, tooMany int
}

func (b burstResult) String() string {
	return fmt.Sprintf("%d processed, %d told to retry", b.created, b.tooMany)
}

// heavyBurst sends, all at once, more processing requests at the output budget than the
// server processes at a time (finding 4): each one is processed or told to come back later
// with a 429 and Retry-After, and the memory they take is the test's bound.
func heavyBurst(t *testing.T, s *localServer, client *http.Client) burstResult {
	t.Helper()
	// 12 references to a 1 MiB value: 12 MiB of output, under the largest output limit
	// the server's memory gives a request whose objects are decoded.
	body := []byte(tpl("heavy", `,"parameters":[{"name":"V","value":"`+strings.Repeat("v", 1<<20)+`"}]`+
		objects(configMap(`{"a":"`+strings.Repeat("${V}", 12)+`"}`))))
	const requests = 4 * hostileConcurrency
	var mu sync.Mutex
	result := burstResult{total: requests}
	var wg sync.WaitGroup
	for range requests {
		wg.Go(func() {
			resp, err := s.do(context.Background(), client, "POST", apiPath(hostileNS, "processedtemplates"), ctJSON, body)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Errorf("burst: no answer: %v", err)
			case resp.status == http.StatusCreated:
				result.created++
			case resp.status == http.StatusTooManyRequests && resp.retryAfter != "":
				result.tooMany++
			default:
				t.Errorf("burst: status %d (Retry-After %q), want 201 or 429 with Retry-After: %.300s", resp.status, resp.retryAfter, resp.body)
			}
		})
	}
	wg.Wait()
	return result
}
