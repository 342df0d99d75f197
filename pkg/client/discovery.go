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

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Discovery reads which groups, versions and resources a server serves (GET /api, /apis and
// each group version's resource list) once, and again after Reset. It stands in for
// client-go's discovery, which links client-go's kubernetes/scheme (every Kubernetes type,
// registered when the program starts; docs/performance.md says what that cost the CLI).
type Discovery struct {
	client rest.Interface

	mu     sync.Mutex
	served *served
}

// served is what one discovery read: the groups in the server's order (the core group
// first), each group version's resources, and the group versions whose list failed.
type served struct {
	groups    []metav1.APIGroup
	resources map[string]*metav1.APIResourceList
	failed    map[string]error
}

const (
	// maxDiscoveryBytes bounds one discovery document (and an access review's answer): a
	// server cannot make the CLI or the catalog hold more than this for an answer (kube-apiserver's largest, /api/v1 or /apis,
	// is tens of KiB; a cluster with hundreds of CRDs stays well under a MiB).
	maxDiscoveryBytes = 16 << 20
	// maxDiscoveryTotalBytes bounds what one read of every group version's list may hold in
	// all: a server listing thousands of group versions is refused, not read to the end.
	maxDiscoveryTotalBytes = 64 << 20
	// discoveryTimeout and discoveryBurst are client-go discovery's defaults: a server that
	// does not answer does not hold a command for ever, and the requests of one read (one per
	// group version) do not wait for the rate limiter.
	discoveryTimeout = 32 * time.Second
	discoveryBurst   = 300
	// discoveryConcurrency bounds the resource lists asked at once.
	discoveryConcurrency = 8
)

// NewDiscoveryForConfig is the discovery of the server of c, with its credentials.
func NewDiscoveryForConfig(c *rest.Config) (*Discovery, error) {
	config := rest.CopyConfig(c)
	if config.Timeout == 0 {
		config.Timeout = discoveryTimeout
	}
	if config.Burst == 0 && config.QPS < 100 {
		config.Burst = discoveryBurst
	}
	client, err := unversionedClient(config)
	if err != nil {
		return nil, err
	}
	return &Discovery{client: client}, nil
}

// unversionedClient is a client of any path of the server of c (AbsPath), whose errors are
// the server's Status.
func unversionedClient(c *rest.Config) (rest.Interface, error) {
	config := rest.CopyConfig(c)
	config.APIPath = ""
	config.GroupVersion = nil
	config.NegotiatedSerializer = schemeOnce().codecs.WithoutConversion()
	if config.UserAgent == "" {
		config.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	return rest.UnversionedRESTClientFor(config)
}

// RESTClient is discovery's client of any path of the server (AbsPath), for other documents
// the server describes itself with (/openapi/v3).
func (d *Discovery) RESTClient() rest.Interface {
	return d.client
}

// Reset forgets what was read: the next question reads the server again (a CRD created since).
func (d *Discovery) Reset() {
	d.mu.Lock()
	d.served = nil
	d.mu.Unlock()
}

// ServedResources is the resource list of group version gv ("v1", "apps/v1"), nil when the
// server does not serve gv, or the error that reading it met.
func (d *Discovery) ServedResources(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	s, err := d.read(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.failed[gv]; err != nil {
		return nil, err
	}
	return s.resources[gv], nil
}

// read returns what the server serves, reading it on the first question after a Reset. As
// client-go's discovery does, a server that answers 404 or 403 to /api or /apis serves no
// group there, and a group version whose list fails is left out of the mapping.
func (d *Discovery) read(ctx context.Context) (*served, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.served != nil {
		return d.served, nil
	}
	var groups []metav1.APIGroup
	core := &metav1.APIVersions{}
	if err := d.get(ctx, "/api", core); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return nil, err
	}
	if len(core.Versions) > 0 {
		g := metav1.APIGroup{PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: core.Versions[0], Version: core.Versions[0]}}
		for _, v := range core.Versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
		}
		groups = append(groups, g)
	}
	list := &metav1.APIGroupList{}
	if err := d.get(ctx, "/apis", list); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		return nil, err
	}
	groups = append(groups, list.Groups...)

	s := &served{groups: groups, resources: map[string]*metav1.APIResourceList{}, failed: map[string]error{}}
	var total atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, discoveryConcurrency)
	for _, g := range groups {
		for _, v := range g.Versions {
			wg.Add(1)
			go func(gv string) {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				path := "/apis/" + gv
				if g.Name == "" {
					path = "/api/" + gv
				}
				resources := &metav1.APIResourceList{}
				if total.Load() > maxDiscoveryTotalBytes {
					return
				}
				n, err := readJSON(ctx, d.client.Get().AbsPath(path), path, resources)
				total.Add(int64(n))
				if err == nil && resources.GroupVersion == "" {
					resources.GroupVersion = gv // an old server's list may not say
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					s.failed[gv] = err
					return
				}
				s.resources[gv] = resources
			}(v.GroupVersion)
		}
	}
	wg.Wait()
	if total.Load() > maxDiscoveryTotalBytes {
		return nil, fmt.Errorf("the server's discovery is over %d MiB in all (%d group versions)", maxDiscoveryTotalBytes>>20, len(s.resources)+len(s.failed))
	}
	d.served = s
	return s, nil
}

// get reads the JSON document at path into into.
func (d *Discovery) get(ctx context.Context, path string, into any) error {
	_, err := readJSON(ctx, d.client.Get().AbsPath(path), path, into)
	return err
}

// readJSON makes the request and reads its JSON answer into into, at most maxDiscoveryBytes
// of it: what a server answers is read whole, so it is bounded. It returns the bytes read.
func readJSON(ctx context.Context, req *rest.Request, what string, into any) (int, error) {
	body, err := req.SetHeader("Accept", "application/json").Stream(ctx)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxDiscoveryBytes+1))
	if err != nil {
		return len(data), err
	}
	if len(data) > maxDiscoveryBytes {
		return len(data), fmt.Errorf("the server's answer to %s is over %d MiB", what, maxDiscoveryBytes>>20)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return len(data), fmt.Errorf("the server's answer to %s: %w", what, err)
	}
	return len(data), nil
}

// groupVersion parses a discovery group version, "" group for the core one.
func groupVersion(gv string) (schema.GroupVersion, bool) {
	parsed, err := schema.ParseGroupVersion(gv)
	return parsed, err == nil
}
