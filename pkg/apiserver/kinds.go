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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"stencil.dev/stencil/pkg/transform"
)

// kindToResource maps kinds to resources through the hosting cluster's discovery when there is
// a cluster, and through the built-in table of Kubernetes' kinds otherwise or when discovery
// does not know the kind.
func kindToResource(config *rest.Config) func(group, kind string) (string, bool) {
	if config == nil {
		return transform.DefaultKindToResource
	}
	client, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return transform.DefaultKindToResource
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(client))
	return func(group, kind string) (string, bool) {
		if resource, ok := transform.DefaultKindToResource(group, kind); ok {
			return resource, true
		}
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind})
		if err != nil {
			// A kind discovery does not know may be new since the cache was filled.
			mapper.Reset()
			if mapping, err = mapper.RESTMapping(schema.GroupKind{Group: group, Kind: kind}); err != nil {
				return "", false
			}
		}
		return mapping.Resource.Resource, true
	}
}
