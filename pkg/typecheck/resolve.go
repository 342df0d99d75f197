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
	"sort"
)

// Resolution is what a source knows of one kind.
type Resolution struct {
	// Schema is the kind's schema, nil when the source has none; its references resolve in
	// Set.
	Schema *Schema
	Set    *Set
	// GroupKnown says the source knows the kind's group, so that a kind it has no schema of
	// is not served (rather than merely not described).
	GroupKnown bool
	// Versions are the versions of the group that serve the kind, when Schema is nil.
	Versions []string
	// Source names where the schemas come from, for messages: "Kubernetes v1.37.1", "the
	// cluster", a file.
	Source string
}

// Resolver finds the schema of a kind. An error means the source could not be asked (a
// cluster that does not answer); the kind is then left unchecked.
type Resolver interface {
	Resolve(ctx context.Context, gvk GroupVersionKind) (Resolution, error)
}

// Static is a Set as a Resolver, named source in messages.
type Static struct {
	Set    *Set
	Source string
}

// Resolve looks gvk up in the set.
func (s Static) Resolve(_ context.Context, gvk GroupVersionKind) (Resolution, error) {
	if schema := s.Set.Kind(gvk); schema != nil {
		return Resolution{Schema: schema, Set: s.Set, GroupKnown: true, Source: s.Source}, nil
	}
	versions, known := s.Set.Versions(gvk.Group, gvk.Kind)
	return Resolution{GroupKnown: known, Versions: versions, Source: s.Source}, nil
}

// Chain asks each resolver in turn: the first with a schema answers. Without one, the group
// is known when any resolver knows it, and the versions are all the resolvers name.
type Chain []Resolver

// Resolve asks the resolvers in order.
func (c Chain) Resolve(ctx context.Context, gvk GroupVersionKind) (Resolution, error) {
	var out Resolution
	var firstErr error
	seen := map[string]bool{}
	for _, r := range c {
		res, err := r.Resolve(ctx, gvk)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if res.Schema != nil {
			return res, nil
		}
		if res.GroupKnown && !out.GroupKnown {
			out.GroupKnown, out.Source = true, res.Source
		}
		for _, v := range res.Versions {
			if !seen[v] {
				seen[v] = true
				out.Versions = append(out.Versions, v)
			}
		}
	}
	sort.Strings(out.Versions)
	if !out.GroupKnown && firstErr != nil {
		return out, firstErr
	}
	return out, nil
}
