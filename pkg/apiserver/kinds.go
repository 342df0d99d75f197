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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"stencil.dev/stencil/pkg/transform/remove"
)

// kindToResource maps kinds to resources through the hosting cluster's discovery when there is
// a cluster, and through the built-in table of Kubernetes' kinds otherwise or when discovery
// does not know the kind.
func kindToResource(config *rest.Config) func(group, kind string) (string, bool) {
	if config == nil {
		return remove.DefaultKindToResource
	}
	mapper, err := restMapper(config)
	if err != nil {
		return remove.DefaultKindToResource
	}
	// A kind discovery does not know may be new since the cache was filled, so an unknown kind
	// refreshes it; but a template full of made-up kinds must not make every request
	// rediscover the whole cluster, so refreshes are at most one per rediscoveryInterval.
	var mu sync.Mutex
	var lastReset time.Time
	return func(group, kind string) (string, bool) {
		if resource, ok := remove.DefaultKindToResource(group, kind); ok {
			return resource, true
		}
		gk := schema.GroupKind{Group: group, Kind: kind}
		if mapping, err := mapper.RESTMapping(gk); err == nil {
			return mapping.Resource.Resource, true
		}
		mu.Lock()
		refresh := time.Since(lastReset) > rediscoveryInterval
		if refresh {
			lastReset = time.Now()
		}
		mu.Unlock()
		if !refresh {
			return "", false
		}
		mapper.Reset()
		mapping, err := mapper.RESTMapping(gk)
		if err != nil {
			return "", false
		}
		return mapping.Resource.Resource, true
	}
}

// restMapper maps kinds to resources through config's discovery, read when first needed.
func restMapper(config *rest.Config) (meta.ResettableRESTMapper, error) {
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	return restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client)), nil
}

// rediscoveryInterval is the least time between two refreshes of the discovery cache.
const rediscoveryInterval = 30 * time.Second
