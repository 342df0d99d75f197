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

package typecheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Fetch GETs a path of the cluster (/openapi/v3, /openapi/v3/apis/apps/v1?hash=...) and
// returns the body of a 200; the caller closes it.
type Fetch func(ctx context.Context, path string) (io.ReadCloser, error)

// RESTFetch is a Fetch by a client of the cluster (a discovery client's RESTClient): its
// credentials, its TLS, its rate limits.
func RESTFetch(client rest.Interface) Fetch {
	return func(ctx context.Context, path string) (io.ReadCloser, error) {
		u, err := url.Parse(path)
		if err != nil {
			return nil, err
		}
		req := client.Get().AbsPath(u.Path)
		for name, values := range u.Query() {
			for _, v := range values {
				req = req.Param(name, v)
			}
		}
		return req.Stream(ctx)
	}
}

// The bounds of what a cluster may make the check read.
const (
	// DefaultMaxDocumentBytes bounds one document of /openapi/v3: the largest kube-apiserver
	// serves (api/v1) is about 1.5 MiB with its descriptions.
	DefaultMaxDocumentBytes = 32 << 20
	// DefaultIndexTTL is how long the cluster's list of group versions is trusted before it
	// is asked again (a CRD installed since is then seen).
	DefaultIndexTTL = time.Minute
	// maxIndexPaths bounds the group versions an index may list.
	maxIndexPaths = 10000
	// minIndexRefresh is how old the index must be before a group it does not list makes it
	// read again: a CRD installed a moment ago is seen at once, and a template full of made-up
	// groups does not make every write ask the cluster.
	minIndexRefresh = 5 * time.Second
)

// Cluster resolves kinds from a cluster's /openapi/v3: the index of group versions, then
// each group version's document when one of its kinds is first asked for, kept by the URL the
// index gives it (which carries the document's hash, so that a changed document is read
// again). It is safe for concurrent use and shared by the server's requests.
type Cluster struct {
	// Fetch reads from the cluster.
	Fetch Fetch
	// Source names the cluster in findings; "the cluster" when empty.
	Source string
	// MaxDocumentBytes bounds one document; 0 is DefaultMaxDocumentBytes.
	MaxDocumentBytes int64
	// IndexTTL is how long the index is kept; 0 is DefaultIndexTTL.
	IndexTTL time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu      sync.Mutex
	index   map[string]string // group version path (apis/apps/v1) to its URL
	fetched time.Time
	sets    map[string]*Set // by URL
}

// indexDocument is /openapi/v3: the group versions served, each with its document's URL.
type indexDocument struct {
	Paths map[string]struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	} `json:"paths"`
}

// Index reads the cluster's list of group versions now, if it is not fresh: stencil lint
// calls it first, so that a cluster that cannot be asked is an error before any file is read
// rather than a note per kind.
func (c *Cluster) Index(ctx context.Context) error {
	_, err := c.currentIndex(ctx, false)
	return err
}

// Resolve finds gvk's schema in the document of its group version; without one, whether
// the cluster serves the group at all and in which versions it serves the kind.
func (c *Cluster) Resolve(ctx context.Context, gvk GroupVersionKind) (Resolution, error) {
	index, err := c.currentIndex(ctx, false)
	if err != nil {
		return Resolution{}, err
	}
	if !servesGroup(index, gvk.Group) {
		if index, err = c.currentIndex(ctx, true); err != nil {
			return Resolution{}, err
		}
	}
	source := c.source()
	if url, ok := index[groupVersionPath(gvk.Group, gvk.Version)]; ok {
		set, err := c.set(ctx, url)
		if err != nil {
			return Resolution{}, err
		}
		if schema := set.Kind(gvk); schema != nil {
			return Resolution{Schema: schema, Set: set, GroupKnown: true, Source: source}, nil
		}
	}
	prefix := groupVersionPath(gvk.Group, "")
	var versions []string
	known := false
	for path, url := range index {
		version, inGroup := strings.CutPrefix(path, prefix)
		if !inGroup || strings.Contains(version, "/") || version == gvk.Version {
			continue
		}
		known = true
		set, err := c.set(ctx, url)
		if err != nil {
			return Resolution{}, err
		}
		if set.Kind(GroupVersionKind{Group: gvk.Group, Version: version, Kind: gvk.Kind}) != nil {
			versions = append(versions, version)
		}
	}
	if _, served := index[groupVersionPath(gvk.Group, gvk.Version)]; served {
		known = true
	}
	sort.Strings(versions)
	return Resolution{GroupKnown: known, Versions: versions, Source: source}, nil
}

// source names the cluster in findings.
func (c *Cluster) source() string {
	if c.Source == "" {
		return "the cluster"
	}
	return c.Source
}

// groupVersionPath is the path of a group version's document under /openapi/v3: api/v1 for
// the core group, apis/GROUP/VERSION otherwise; with an empty version, the prefix of the
// group's paths.
func groupVersionPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

// servesGroup reports whether the index lists a version of group.
func servesGroup(index map[string]string, group string) bool {
	prefix := groupVersionPath(group, "")
	for path := range index {
		if version, ok := strings.CutPrefix(path, prefix); ok && !strings.Contains(version, "/") {
			return true
		}
	}
	return false
}

// currentIndex returns the index, read again when it is older than the TTL, or, when stale
// is set (a group it does not list was asked for), older than minIndexRefresh.
func (c *Cluster) currentIndex(ctx context.Context, stale bool) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	ttl := c.IndexTTL
	if ttl <= 0 {
		ttl = DefaultIndexTTL
	}
	if stale {
		ttl = min(ttl, minIndexRefresh)
	}
	if c.index != nil && now.Sub(c.fetched) < ttl {
		return c.index, nil
	}
	var doc indexDocument
	if err := c.read(ctx, "/openapi/v3", &doc); err != nil {
		return nil, err
	}
	if len(doc.Paths) == 0 {
		return nil, fmt.Errorf("%s: /openapi/v3 lists no group versions: not a Kubernetes API server's OpenAPI v3 index", c.source())
	}
	if len(doc.Paths) > maxIndexPaths {
		return nil, fmt.Errorf("%s: /openapi/v3 lists %d group versions, more than %d", c.source(), len(doc.Paths), maxIndexPaths)
	}
	index := make(map[string]string, len(doc.Paths))
	for path, p := range doc.Paths {
		url := p.ServerRelativeURL
		if url == "" || !strings.HasPrefix(url, "/") {
			url = "/openapi/v3/" + path
		}
		index[path] = url
	}
	// Documents whose URL the new index no longer gives are dropped: their hash changed.
	kept := map[string]*Set{}
	for _, url := range index {
		if s, ok := c.sets[url]; ok {
			kept[url] = s
		}
	}
	c.index, c.fetched, c.sets = index, now, kept
	return index, nil
}

// set returns the schemas of the document at url, read once per URL.
func (c *Cluster) set(ctx context.Context, url string) (*Set, error) {
	c.mu.Lock()
	s, ok := c.sets[url]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	var doc Document
	if err := c.read(ctx, url, &doc); err != nil {
		return nil, err
	}
	s = NewSet(&doc)
	c.mu.Lock()
	if c.sets == nil {
		c.sets = map[string]*Set{}
	}
	c.sets[url] = s
	c.mu.Unlock()
	return s, nil
}

// errTooLarge is a document over the bound.
var errTooLarge = errors.New("too large")

// read decodes the JSON document at path into v, reading at most MaxDocumentBytes.
func (c *Cluster) read(ctx context.Context, path string, v any) error {
	body, err := c.Fetch(ctx, path)
	if err != nil {
		return fmt.Errorf("%s: reading %s: %w", c.source(), trimQuery(path), err)
	}
	defer body.Close()
	limit := c.MaxDocumentBytes
	if limit <= 0 {
		limit = DefaultMaxDocumentBytes
	}
	r := &limitedReader{r: body, left: limit}
	if err := json.NewDecoder(r).Decode(v); err != nil {
		switch {
		case errors.Is(err, errTooLarge):
			return fmt.Errorf("%s: %s is larger than %d MiB: not read", c.source(), trimQuery(path), limit>>20)
		case ctx.Err() != nil:
			return fmt.Errorf("%s: reading %s: %w", c.source(), trimQuery(path), ctx.Err())
		}
		return fmt.Errorf("%s: %s is not an OpenAPI v3 document: %v", c.source(), trimQuery(path), err)
	}
	return nil
}

// trimQuery drops the hash of a document's URL from messages.
func trimQuery(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		return path[:i]
	}
	return path
}

// limitedReader fails with errTooLarge past its bound, rather than ending quietly as
// io.LimitReader does (a truncated document would read as a syntax error).
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// now is the cluster's clock.
func (c *Cluster) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}
