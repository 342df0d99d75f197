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

package customtransform

import (
	"context"
	"sync"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/transform/remove"
)

// Rules turns the stored CustomTransforms into removal rules for processing. It lists them from
// the watch cache and parses their paths again only when the list changed. Where the store
// can be watched (the server's), a watch from the list's resource version says when it
// changed, so that a request does not pay a list of the watch cache (a tenth of the server's
// work on a small template): the rules are listed again after any event, or when the watch
// ends, and are as fresh as a list of the watch cache would be.
type Rules struct {
	store rest.Lister

	mu              sync.Mutex
	resourceVersion string
	rules           []remove.Rule
	// fresh says no event came since rules were listed, while watching is true; changes counts
	// the events (a list is fresh only when none came while it was made).
	fresh, watching bool
	changes         uint64
}

// NewRules reads CustomTransforms from store.
func NewRules(store rest.Lister) *Rules { return &Rules{store: store} }

// Current returns the rules in force.
func (r *Rules) Current(ctx context.Context) ([]remove.Rule, error) {
	r.mu.Lock()
	if r.fresh {
		rules := r.rules
		r.mu.Unlock()
		return rules, nil
	}
	changes := r.changes
	r.mu.Unlock()
	// CustomTransforms are cluster-scoped; the request's namespace must not narrow the list.
	ctx = genericapirequest.WithNamespace(ctx, "")
	// ResourceVersion "0" is served by the watch cache, not by etcd.
	obj, err := r.store.List(ctx, &metainternalversion.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	list := obj.(*templates.CustomTransformList)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.watching && list.ResourceVersion != "" {
		r.watching = r.watch(list.ResourceVersion)
	}
	r.fresh = r.watching && r.changes == changes
	if list.ResourceVersion != "" && list.ResourceVersion == r.resourceVersion {
		return r.rules, nil
	}
	rules := make([]remove.Rule, 0, len(list.Items))
	for i := range list.Items {
		// Stored paths were validated on write; one that no longer parses is skipped, not fatal.
		rule, _ := remove.RuleFor(&list.Items[i])
		rules = append(rules, rule)
	}
	r.resourceVersion, r.rules = list.ResourceVersion, rules
	return rules, nil
}

// watch starts watching the store from resourceVersion, when it can be watched: every event
// makes the rules stale, and so does the end of the watch, which the next list starts again.
// It runs for the life of the server (the rules are the server's). r.mu is held.
func (r *Rules) watch(resourceVersion string) bool {
	watcher, ok := r.store.(rest.Watcher)
	if !ok {
		return false
	}
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	w, err := watcher.Watch(ctx, &metainternalversion.ListOptions{ResourceVersion: resourceVersion, Watch: true})
	if err != nil {
		return false
	}
	go func() {
		defer w.Stop()
		for range w.ResultChan() {
			r.mu.Lock()
			r.changes++
			r.fresh = false
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.changes++
		r.fresh, r.watching = false, false
		r.mu.Unlock()
	}()
	return true
}
