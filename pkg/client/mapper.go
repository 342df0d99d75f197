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
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Mapper maps kinds to resources and back from a Discovery, as kubectl's mapper does: the
// core group first, then the groups in the server's order, each group's preferred version
// before its others; a resource may be named by its plural, singular or short name, or its
// kind. Reset (meta.MaybeResetRESTMapper) reads discovery again.
type Mapper struct {
	discovery *Discovery

	mu        sync.Mutex
	mapper    meta.RESTMapper
	lists     []*metav1.APIResourceList
	shortcuts []shortcut
}

// shortcut is a short name (cm) of a resource (configmaps) of a group.
type shortcut struct {
	short, long schema.GroupResource
}

var (
	_ meta.RESTMapper           = &Mapper{}
	_ meta.ResettableRESTMapper = &Mapper{}
)

// NewMapper is the mapper of what d reads.
func NewMapper(d *Discovery) *Mapper {
	return &Mapper{discovery: d}
}

// Reset forgets the mapping and what discovery read.
func (m *Mapper) Reset() {
	m.mu.Lock()
	m.mapper = nil
	m.mu.Unlock()
	m.discovery.Reset()
}

// load returns the mapping, building it from discovery on first use after a Reset.
func (m *Mapper) load() (meta.RESTMapper, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mapper != nil {
		return m.mapper, nil
	}
	s, err := m.discovery.read(context.Background())
	if err != nil {
		return nil, err
	}
	m.mapper, m.lists, m.shortcuts = buildMapper(s)
	return m.mapper, nil
}

// buildMapper is a mapper per served group version, asked in priority order: the core v1
// first, then each group's preferred version and its other versions, in the server's order;
// then any version of each group. The lists and short names come in the same order.
func buildMapper(s *served) (meta.RESTMapper, []*metav1.APIResourceList, []shortcut) {
	var mappers meta.MultiRESTMapper
	var lists []*metav1.APIResourceList
	var shortcuts []shortcut
	resourceOrder := []schema.GroupVersionResource{{Version: "v1", Resource: meta.AnyResource}}
	kindOrder := []schema.GroupVersionKind{{Version: "v1", Kind: meta.AnyKind}}
	prefer := func(gv schema.GroupVersion) {
		resourceOrder = append(resourceOrder, gv.WithResource(meta.AnyResource))
		kindOrder = append(kindOrder, gv.WithKind(meta.AnyKind))
	}
	for _, g := range s.groups {
		if preferred := g.PreferredVersion.Version; preferred != "" && s.resources[g.PreferredVersion.GroupVersion] != nil {
			prefer(schema.GroupVersion{Group: g.Name, Version: preferred})
		}
		for _, v := range g.Versions {
			list := s.resources[v.GroupVersion]
			if list == nil {
				continue
			}
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			if v.Version != g.PreferredVersion.Version {
				prefer(gv)
			}
			lists = append(lists, list)
			mappers = append(mappers, versionMapper(gv, list))
			for _, r := range list.APIResources {
				for _, short := range r.ShortNames {
					shortcuts = append(shortcuts, shortcut{short: schema.GroupResource{Group: g.Name, Resource: short},
						long: schema.GroupResource{Group: g.Name, Resource: r.Name}})
				}
			}
		}
	}
	for _, g := range s.groups {
		resourceOrder = append(resourceOrder, schema.GroupVersionResource{Group: g.Name, Version: meta.AnyVersion, Resource: meta.AnyResource})
		kindOrder = append(kindOrder, schema.GroupVersionKind{Group: g.Name, Version: meta.AnyVersion, Kind: meta.AnyKind})
	}
	return meta.PriorityRESTMapper{Delegate: mappers, ResourcePriority: resourceOrder, KindPriority: kindOrder}, lists, shortcuts
}

// versionMapper maps the resources of one group version, subresources left out. A kind is
// found by its name or its lower-case name; a resource by its plural or singular name (an
// old server that lists no singular gets the usual guess).
func versionMapper(gv schema.GroupVersion, list *metav1.APIResourceList) *meta.DefaultRESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	for _, r := range list.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		scope := meta.RESTScopeRoot
		if r.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		plural, singular := gv.WithResource(r.Name), gv.WithResource(r.SingularName)
		if r.SingularName == "" {
			_, singular = meta.UnsafeGuessKindToResource(gv.WithKind(r.Kind))
		}
		m.AddSpecific(gv.WithKind(strings.ToLower(r.Kind)), plural, singular, scope)
		m.AddSpecific(gv.WithKind(r.Kind), plural, singular, scope)
		m.Add(gv.WithKind(r.Kind+"List"), scope)
	}
	m.Add(gv.WithKind("List"), meta.RESTScopeRoot)
	return m
}

// expand turns a short name into its resource, as kubectl does: a resource named by its
// plural or singular stays as it is; else the first short name that matches (of the group
// given, if one is); else, with a group given, the first short name of a group it begins.
func (m *Mapper) expand(r schema.GroupVersionResource) schema.GroupVersionResource {
	m.mu.Lock()
	lists, shortcuts := m.lists, m.shortcuts
	m.mu.Unlock()
	for _, list := range lists {
		gv, ok := groupVersion(list.GroupVersion)
		if !ok || (r.Group != "" && r.Group != gv.Group) {
			continue
		}
		for _, res := range list.APIResources {
			if r.Resource == res.Name || r.Resource == res.SingularName {
				return r
			}
		}
	}
	for _, s := range shortcuts {
		if (r.Group == "" || r.Group == s.short.Group) && r.Resource == s.short.Resource {
			r.Group, r.Resource = s.long.Group, s.long.Resource
			return r
		}
	}
	if r.Group == "" {
		return r
	}
	for _, s := range shortcuts {
		if strings.HasPrefix(s.short.Group, r.Group) && r.Resource == s.short.Resource {
			r.Group, r.Resource = s.long.Group, s.long.Resource
			return r
		}
	}
	return r
}

// KindFor is the kind of a resource, which may be a short name.
func (m *Mapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	mapper, err := m.load()
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return mapper.KindFor(m.expand(resource))
}

// KindsFor is every kind a resource, which may be a short name, may be.
func (m *Mapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	mapper, err := m.load()
	if err != nil {
		return nil, err
	}
	return mapper.KindsFor(m.expand(resource))
}

// ResourceFor is the resource a partial one, which may be a short name, means.
func (m *Mapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	mapper, err := m.load()
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return mapper.ResourceFor(m.expand(input))
}

// ResourcesFor is every resource a partial one, which may be a short name, may mean.
func (m *Mapper) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	mapper, err := m.load()
	if err != nil {
		return nil, err
	}
	return mapper.ResourcesFor(m.expand(input))
}

// RESTMapping is the resource of a kind, in the first of versions that serves it (any version
// in priority order when none is given).
func (m *Mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	mapper, err := m.load()
	if err != nil {
		return nil, err
	}
	return mapper.RESTMapping(gk, versions...)
}

// RESTMappings is every resource of a kind in versions.
func (m *Mapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	mapper, err := m.load()
	if err != nil {
		return nil, err
	}
	return mapper.RESTMappings(gk, versions...)
}

// ResourceSingularizer is the singular name of a resource.
func (m *Mapper) ResourceSingularizer(resource string) (string, error) {
	mapper, err := m.load()
	if err != nil {
		return "", err
	}
	return mapper.ResourceSingularizer(resource)
}
