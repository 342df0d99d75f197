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

package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/artifact"
)

// fakeStore is a Store over a map, counting its reads; block, when set, holds every read until
// it is closed.
type fakeStore struct {
	mu        sync.Mutex
	artifacts map[string]*Stored
	reads     atomic.Int64
	block     chan struct{}
	err       error
}

func (f *fakeStore) Artifact(ctx context.Context, namespace, name string) (*Stored, error) {
	f.reads.Add(1)
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	s := f.artifacts[namespace+"/"+name]
	if s == nil {
		return nil, nil
	}
	copied := *s
	return &copied, nil
}

func (f *fakeStore) set(key string, s *Stored) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.artifacts[key] = s
}

// published is one instance's artifact and the URL path it is served at.
type published struct {
	stored *Stored
	path   string
}

func publish(t *testing.T, store *fakeStore, namespace, name, value string) published {
	t.Helper()
	a, err := artifact.Build([]artifact.Object{{Kind: "ConfigMap", Namespace: namespace, Name: "settings",
		JSON: fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"v":%q}}`, value)}}, artifact.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	token, err := artifact.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	s := &Stored{Digest: a.Digest, Token: token, Archive: a.Archive}
	store.set(namespace+"/"+name, s)
	return published{stored: s, path: artifact.URLPath(namespace, name, token, a.Digest)}
}

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func get(t *testing.T, h http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, "http://artifacts.example"+target, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestServesThePublishedArtifact(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	h := NewHandler(store, Options{})
	w := get(t, h, http.MethodGet, p.path)
	if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), p.stored.Archive) || w.Header().Get("Content-Type") != "application/gzip" ||
		w.Header().Get("Content-Length") != fmt.Sprint(len(p.stored.Archive)) {
		t.Fatalf("GET: %d %v, %d bytes", w.Code, w.Header(), w.Body.Len())
	}
	if artifact.Digest(w.Body.Bytes()) != p.stored.Digest {
		t.Error("the body does not have the published digest")
	}
	head := get(t, h, http.MethodHead, p.path)
	if head.Code != http.StatusOK || head.Body.Len() != 0 {
		t.Errorf("HEAD: %d, %d bytes", head.Code, head.Body.Len())
	}
}

// An unauthenticated caller who knows an instance's name, or its render's digest, or guesses,
// learns nothing: every URL but the published one gets the same 404.
func TestUnauthenticatedReaderGetsNothing(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	other := publish(t, store, "demo", "other", "1")
	h := NewHandler(store, Options{})
	okBody := get(t, h, http.MethodGet, "/templateinstance/demo/nothere/"+strings.Repeat("A", 43)+"/"+strings.Repeat("0", 64)+".tar.gz").Body.String()
	hex := strings.TrimPrefix(p.stored.Digest, "sha256:")
	wrongToken, err := artifact.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		artifact.URLPath("demo", "web", wrongToken, p.stored.Digest),                       // the digest, a guessed token
		artifact.URLPath("demo", "web", other.stored.Token, p.stored.Digest),               // another instance's token
		artifact.URLPath("demo", "web", p.stored.Token, "sha256:"+strings.Repeat("0", 64)), // the token, another digest
		"/" + artifact.Path("demo", "web", p.stored.Digest),                                // the status's path, no token
		p.path + "?download=1",
		p.path + "/",
		strings.ToUpper(p.path),
		"/templateinstance/demo/web/" + p.stored.Token + "/" + hex + ".tgz",
		"/templateinstance/demo/web/" + p.stored.Token + "/" + hex,
		"/",
		"/templateinstance/",
		"/templateinstance/demo/web",
		"/metrics",
	} {
		w := get(t, h, http.MethodGet, target)
		if w.Code != http.StatusNotFound || w.Body.String() != okBody {
			t.Errorf("GET %s: %d %q, want the 404 of a missing instance", target, w.Code, w.Body.String())
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		if w := get(t, h, method, p.path); w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d", method, w.Code)
		}
	}
}

// Path traversal: the server reads no file, and no spelling of a path reaches the Store with
// a namespace or name that is not one.
func TestPathTraversal(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	token, hex := p.stored.Token, strings.TrimPrefix(p.stored.Digest, "sha256:")
	h := NewHandler(store, Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, raw := range []string{
		"/templateinstance/../../../../etc/passwd",
		"/templateinstance/demo/../web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web/" + token + "/../" + hex + ".tar.gz",
		"/templateinstance/demo/web/" + token + "/..%2f..%2f..%2fetc%2fpasswd",
		"/templateinstance/demo%2fweb/x/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/%2e%2e/web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/%2e%2e/" + token + "/" + hex + ".tar.gz",
		"/templateinstance//web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web%00/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/Demo/web/" + token + "/" + hex + ".tar.gz",
		"//templateinstance/demo/web/" + token + "/" + hex + ".tar.gz",
		"/templateinstance/demo/web/" + token + "/" + hex + ".tar.gz%00",
		"/./templateinstance/demo/web/" + token + "/" + hex + ".tar.gz",
	} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		// Written by hand: a client library would clean the path first.
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: artifacts\r\nConnection: close\r\n\r\n", raw)
		resp, err := io.ReadAll(conn)
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		status := strings.SplitN(string(resp), "\r\n", 2)[0]
		if strings.Contains(status, " 200 ") || bytes.Contains(resp, p.stored.Archive[:16]) {
			t.Errorf("GET %s: %s", raw, status)
		}
	}
	if n := store.reads.Load(); n != 0 {
		t.Errorf("the Store was read %d times for paths that name no artifact", n)
	}
}

// However many requests ask about an instance, with whatever token or digest, the Store is
// read at most once per refresh period; a published artifact is served from memory.
func TestStoreReadsAreBounded(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	c := &clock{now: time.Unix(1000, 0)}
	h := NewHandler(store, Options{Now: c.Now})
	for i := 0; i < 1000; i++ {
		token, err := artifact.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		if w := get(t, h, http.MethodGet, artifact.URLPath("demo", "web", token, p.stored.Digest)); w.Code != http.StatusNotFound {
			t.Fatalf("a guessed token: %d", w.Code)
		}
		if w := get(t, h, http.MethodGet, artifact.URLPath("demo", fmt.Sprintf("absent-%d", i%3), token, p.stored.Digest)); w.Code != http.StatusNotFound {
			t.Fatalf("an absent instance: %d", w.Code)
		}
	}
	if n := store.reads.Load(); n != 4 {
		t.Errorf("1000 guesses about 4 instances read the Store %d times, want 4", n)
	}
	for i := 0; i < 100; i++ {
		if w := get(t, h, http.MethodGet, p.path); w.Code != http.StatusOK {
			t.Fatalf("GET: %d", w.Code)
		}
	}
	if n := store.reads.Load(); n != 4 {
		t.Errorf("100 fetches of the artifact read the Store %d more times", n-4)
	}
	// Republished: the new URL is read once the refresh period has passed, the old one is gone.
	c.advance(DefaultRefresh)
	next := publish(t, store, "demo", "web", "2")
	if w := get(t, h, http.MethodGet, next.path); w.Code != http.StatusOK || artifact.Digest(w.Body.Bytes()) != next.stored.Digest {
		t.Fatalf("the new artifact: %d", w.Code)
	}
	c.advance(DefaultMaxAge)
	if w := get(t, h, http.MethodGet, p.path); w.Code != http.StatusNotFound {
		t.Errorf("the old artifact: %d", w.Code)
	}
	// Deleted: served no longer than MaxAge.
	store.set("demo/web", nil)
	c.advance(DefaultMaxAge)
	if w := get(t, h, http.MethodGet, next.path); w.Code != http.StatusNotFound {
		t.Errorf("after the instance is gone: %d", w.Code)
	}
}

// An archive changed in storage behind the publisher's back is nobody's artifact.
func TestTamperedStorageIsNotServed(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	tampered := *p.stored
	tampered.Archive = append([]byte(nil), p.stored.Archive...)
	tampered.Archive[len(tampered.Archive)/2] ^= 0xff
	store.set("demo/web", &tampered)
	if w := get(t, NewHandler(store, Options{}), http.MethodGet, p.path); w.Code != http.StatusNotFound {
		t.Errorf("GET of a tampered archive: %d", w.Code)
	}
}

func TestStoreFailureIsRetryable(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	store.err = errors.New("connection refused")
	w := get(t, NewHandler(store, Options{}), http.MethodGet, p.path)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || strings.Contains(w.Body.String(), "refused") {
		t.Errorf("GET while the store fails: %d %v %q", w.Code, w.Header(), w.Body.String())
	}
}

// Many requests at once: MaxInFlight are answered, the others wait QueueWait, then get 429.
func TestRequestsInFlightAreBounded(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}, block: make(chan struct{})}
	p := publish(t, store, "demo", "web", "1")
	h := NewHandler(store, Options{MaxInFlight: 2, QueueWait: 50 * time.Millisecond})
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- get(t, h, http.MethodGet, p.path).Code
		}()
	}
	for store.reads.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	for len(h.slots) < 2 {
		time.Sleep(time.Millisecond)
	}
	if w := get(t, h, http.MethodGet, p.path); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Errorf("a third request while two are answered: %d", w.Code)
	}
	close(store.block)
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK {
			t.Errorf("a request in flight: %d", code)
		}
	}
}

// The cache holds at most its bytes and entries; an archive larger than it is not kept.
func TestCacheBounds(t *testing.T) {
	c := newCache(100, 3)
	at := time.Unix(0, 0)
	for i := 0; i < 10; i++ {
		c.put(fmt.Sprint(i), &Stored{Archive: make([]byte, 40)}, at)
		if c.bytes > 100 || c.order.Len() > 3 || len(c.entries) != c.order.Len() {
			t.Fatalf("after %d puts: %d bytes, %d entries", i+1, c.bytes, c.order.Len())
		}
	}
	c.put("huge", &Stored{Archive: make([]byte, 101)}, at)
	if _, _, ok := c.get("huge"); ok {
		t.Error("an archive larger than the cache was kept")
	}
	for i := 0; i < 10; i++ {
		c.put(fmt.Sprint("none", i), nil, at)
	}
	if c.order.Len() != 3 || c.bytes != 0 {
		t.Errorf("answers of none: %d entries, %d bytes", c.order.Len(), c.bytes)
	}
}

// countingReader counts what is read of a request body.
type countingReader struct{ n atomic.Int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	r.n.Add(int64(len(p)))
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A huge request costs nothing: a body is never read, headers over the bound get 431.
func TestHugeRequests(t *testing.T) {
	store := &fakeStore{artifacts: map[string]*Stored{}}
	p := publish(t, store, "demo", "web", "1")
	srv := httptest.NewUnstartedServer(NewHandler(store, Options{}))
	srv.Config = NewServer("", srv.Config.Handler)
	srv.Start()
	defer srv.Close()

	body := &countingReader{}
	req, err := http.NewRequest(http.MethodGet, srv.URL+p.path, io.LimitReader(body, 1<<30))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 1 << 30
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Equal(got, p.stored.Archive) {
			t.Errorf("GET with a body: %d", resp.StatusCode)
		}
	}
	if n := body.n.Load(); n > 8<<20 {
		t.Errorf("the server read %d bytes of a body it has no use for", n)
	}

	req, err = http.NewRequest(http.MethodGet, srv.URL+p.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Filler", strings.Repeat("a", 64<<10))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB of headers: %d", resp.StatusCode)
	}
	s := NewServer(":0", nil)
	if s.ReadHeaderTimeout == 0 || s.ReadTimeout == 0 || s.WriteTimeout == 0 || s.IdleTimeout == 0 || s.MaxHeaderBytes > 64<<10 {
		t.Errorf("the server has an unbounded wait or header: %+v", s)
	}
}
