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
// the watch cache and parses their paths again only when the list changed.
type Rules struct {
	store rest.Lister

	mu              sync.Mutex
	resourceVersion string
	rules           []remove.Rule
}

// NewRules reads CustomTransforms from store.
func NewRules(store rest.Lister) *Rules { return &Rules{store: store} }

// Current returns the rules in force.
func (r *Rules) Current(ctx context.Context) ([]remove.Rule, error) {
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
