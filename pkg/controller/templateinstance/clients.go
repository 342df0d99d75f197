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

package templateinstance

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
)

// userClients are the clients of one requester: every request impersonates them.
type userClients struct {
	dynamic dynamic.Interface
	kube    kubernetes.Interface
}

// clientCache keeps the clients of recent requesters, so that their connections are reused,
// and maps kinds to resources through the target's discovery.
type clientCache struct {
	target *restclient.Config
	mapper meta.ResettableRESTMapper

	// self, when set, serves every requester: the target's own identity acts.
	self *userClients

	mu    sync.Mutex
	users map[string]*userClients
}

// maxCachedUsers bounds the requesters whose clients are kept; the cache starts over past it.
const maxCachedUsers = 512

func newClientCache(target *restclient.Config, actAsSelf bool) (*clientCache, error) {
	disco, err := discovery.NewDiscoveryClientForConfig(target)
	if err != nil {
		return nil, err
	}
	c := &clientCache{target: target, users: map[string]*userClients{},
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))}
	if actAsSelf {
		if c.self, err = clientsFor(target); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func clientsFor(config *restclient.Config) (*userClients, error) {
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return &userClients{dynamic: dyn, kube: kube}, nil
}

// forUser returns the clients that act as r.
func (c *clientCache) forUser(r *templatesv1.TemplateInstanceRequester) (*userClients, error) {
	if c.self != nil {
		return c.self, nil
	}
	key := identityKey(requesterInfo(r))
	c.mu.Lock()
	defer c.mu.Unlock()
	if u, ok := c.users[key]; ok {
		return u, nil
	}
	config := restclient.CopyConfig(c.target)
	config.Impersonate = restclient.ImpersonationConfig{UserName: r.Username, UID: r.UID, Groups: r.Groups, Extra: r.Extra}
	u, err := clientsFor(config)
	if err != nil {
		return nil, err
	}
	if len(c.users) >= maxCachedUsers {
		c.users = map[string]*userClients{}
	}
	c.users[key] = u
	return u, nil
}

// identityKey tells identities apart: two users with one key are the same to an authorizer.
func identityKey(u user.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q", u.GetName(), u.GetUID(), u.GetGroups())
	extra := u.GetExtra()
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %q=%q", k, extra[k])
	}
	return b.String()
}
