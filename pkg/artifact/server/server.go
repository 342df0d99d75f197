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

// Package server serves published artifacts over plain HTTP, as Flux's source-controller
// serves its own: kustomize-controller fetches an ExternalArtifact's URL without credentials
// and checks what it got against the digest the ExternalArtifact's status names.
//
// Nothing here touches a file: a URL names an instance, its token and a digest
// (artifact.ParseURLPath), and the bytes come from a Store. Every request that names no
// current artifact, with its token, gets the same 404, so the server tells a caller nothing
// about what exists. Its cost is bounded: requests in flight (the rest wait briefly, then get
// 429), bytes cached, one Store read per instance per second whatever is asked, header bytes
// and time, and the time an answer may take to write.
package server

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strconv"
	"time"

	"stencil.dev/stencil/pkg/artifact"
)

// Stored is the artifact an instance published last.
type Stored struct {
	// Digest is "sha256:<hex>" of Archive as published.
	Digest string
	// Token is the instance's token, which the artifact's URL carries.
	Token string
	// Archive is the tar.gz as stored.
	Archive []byte
}

// Store finds the artifact an instance published last.
type Store interface {
	// Artifact returns the artifact of the instance namespace/name; nil, nil when it has none
	// (no such instance, or it publishes nothing).
	Artifact(ctx context.Context, namespace, name string) (*Stored, error)
}

// Options bound a Handler's cost; zero fields take the defaults.
type Options struct {
	// MaxInFlight is how many requests are answered at once.
	MaxInFlight int
	// QueueWait is how long a request waits for its turn before a 429.
	QueueWait time.Duration
	// CacheBytes bounds the bytes of artifacts kept in memory; CacheEntries their number.
	CacheBytes   int64
	CacheEntries int
	// Refresh is how long an answer of the Store is used before it is asked again about an
	// artifact it did not have; MaxAge how long one that matched a request is served without
	// asking again (an instance deleted, or whose requester lost the right to read its
	// artifact, stops being served then).
	Refresh, MaxAge time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Defaults of Options: with 1 MB artifacts, the answers in flight and the cache hold at most
// about 100 MB together.
const (
	DefaultMaxInFlight  = 32
	DefaultQueueWait    = 5 * time.Second
	DefaultCacheBytes   = 64 << 20
	DefaultCacheEntries = 4096
	DefaultRefresh      = time.Second
	DefaultMaxAge       = time.Minute
)

func (o *Options) complete() {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.QueueWait <= 0 {
		o.QueueWait = DefaultQueueWait
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.CacheEntries <= 0 {
		o.CacheEntries = DefaultCacheEntries
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultRefresh
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Handler answers GET and HEAD of artifact URLs.
type Handler struct {
	store Store
	opts  Options
	slots chan struct{}
	cache *cache
}

// NewHandler returns a Handler over store.
func NewHandler(store Store, opts Options) *Handler {
	opts.complete()
	return &Handler{store: store, opts: opts, slots: make(chan struct{}, opts.MaxInFlight),
		cache: newCache(opts.CacheBytes, opts.CacheEntries)}
}

// Published tells the Handler of an artifact its process just stored, so that the first fetch
// need not read it back.
func (h *Handler) Published(namespace, name string, s *Stored) {
	h.cache.put(namespace+"/"+name, s, h.opts.Now())
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// The raw path: a client's escapes and dot segments are never decoded into a name.
	loc, ok := artifact.ParseURLPath(r.URL.EscapedPath())
	if !ok || r.URL.RawQuery != "" {
		notFound(w)
		return
	}
	wait := time.NewTimer(h.opts.QueueWait)
	defer wait.Stop()
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-wait.C:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	case <-r.Context().Done():
		return
	}
	s, err := h.lookup(r.Context(), loc)
	if err != nil {
		// The Store could not answer (the cluster is down): a client retries a 503.
		w.Header().Set("Retry-After", "5")
		http.Error(w, "the artifact store is unavailable", http.StatusServiceUnavailable)
		return
	}
	if s == nil || subtle.ConstantTimeCompare([]byte(s.Token), []byte(loc.Token)) != 1 || s.Digest != loc.Digest {
		notFound(w)
		return
	}
	header := w.Header()
	header.Set("Content-Type", "application/gzip")
	header.Set("Content-Length", strconv.Itoa(len(s.Archive)))
	header.Set("Cache-Control", "private, max-age=0")
	header.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(s.Archive)
	}
}

// lookup returns the instance's artifact from the cache, or from the Store when the cache has
// none for loc's digest and token and its entry is older than the refresh period: a caller
// who asks for anything else cannot make the server read the Store more often than that.
func (h *Handler) lookup(ctx context.Context, loc artifact.Location) (*Stored, error) {
	key := loc.Namespace + "/" + loc.Name
	now := h.opts.Now()
	s, fetched, ok := h.cache.get(key)
	if ok && (now.Sub(fetched) < h.opts.Refresh || (s != nil && s.Digest == loc.Digest && s.Token == loc.Token && now.Sub(fetched) < h.opts.MaxAge)) {
		return s, nil
	}
	s, err := h.store.Artifact(ctx, loc.Namespace, loc.Name)
	if err != nil {
		return nil, err
	}
	if s != nil && artifact.Digest(s.Archive) != s.Digest {
		// An archive whose digest is not the published one was changed behind the publisher's
		// back: it is nobody's artifact (the publisher writes it again on its next pass).
		s = nil
	}
	h.cache.put(key, s, now)
	return s, nil
}

func notFound(w http.ResponseWriter) {
	http.Error(w, "404 page not found", http.StatusNotFound)
}

// NewServer returns the HTTP server of h on addr with the timeouts and header bound of a
// server any pod of the cluster may reach: a slow or huge request costs one connection for
// seconds, never more.
func NewServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
}
