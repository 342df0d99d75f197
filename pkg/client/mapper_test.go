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

package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/client/clienttest"
)

var served = []*metav1.APIResourceList{
	{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}},
		{Name: "namespaces", Namespaced: false, Kind: "Namespace", ShortNames: []string{"ns"}},
		{Name: "pods/log", Namespaced: true, Kind: "Pod"},
	}},
	{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", ShortNames: []string{"ev"}},
	}},
	{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{
		{Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Namespaced: true, Kind: "HorizontalPodAutoscaler", ShortNames: []string{"hpa"}},
	}},
	{GroupVersion: "autoscaling/v1", APIResources: []metav1.APIResource{
		{Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Namespaced: true, Kind: "HorizontalPodAutoscaler", ShortNames: []string{"hpa"}},
	}},
}

// TestMapper: the mapper answers as kubectl's does: the core group before others, a group's
// preferred version first, short and singular names and kinds, subresources left out, a
// cluster-scoped resource without a singular name guessed; Reset reads discovery again.
func TestMapper(t *testing.T) {
	server := clienttest.NewDiscoveryServer(t, served)
	d, err := client.NewDiscoveryForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	m := client.NewMapper(d)
	for arg, want := range map[string]schema.GroupVersionKind{
		"events":                   {Version: "v1", Kind: "Event"},
		"ev":                       {Version: "v1", Kind: "Event"},
		"events.events.k8s.io":     {Group: "events.k8s.io", Version: "v1", Kind: "Event"},
		"ev.events.k8s.io":         {Group: "events.k8s.io", Version: "v1", Kind: "Event"},
		"hpa":                      {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		"hpa.autoscal":             {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		"horizontalpodautoscaler":  {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		"horizontalpodautoscalers": {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
		"namespace":                {Version: "v1", Kind: "Namespace"},
	} {
		_, gr := schema.ParseResourceArg(arg)
		got, err := m.KindFor(gr.WithVersion(""))
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", arg, got, err, want)
		}
	}
	mapping, err := m.RESTMapping(schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"})
	if err != nil || mapping.Resource.Version != "v2" || mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("HPA mapping: %+v %v", mapping, err)
	}
	if mapping, err := m.RESTMapping(schema.GroupKind{Kind: "Namespace"}, "v1"); err != nil || mapping.Scope.Name() != meta.RESTScopeNameRoot {
		t.Errorf("Namespace mapping: %+v %v", mapping, err)
	}
	if _, err := m.KindFor(schema.GroupVersionResource{Resource: "pods/log"}); !meta.IsNoMatchError(err) {
		t.Errorf("a subresource mapped: %v", err)
	}
	if _, err := m.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"}); !meta.IsNoMatchError(err) {
		t.Errorf("an unknown kind: %v", err)
	}
	if got := server.Reads.Load(); got != 1 {
		t.Errorf("discovery read %d times, want once", got)
	}
	meta.MaybeResetRESTMapper(m)
	if _, err := m.KindFor(schema.GroupVersionResource{Resource: "events"}); err != nil || server.Reads.Load() != 2 {
		t.Errorf("after a reset: %v, %d reads", err, server.Reads.Load())
	}
	if list, err := d.ServedResources(context.Background(), "apps/v1"); list != nil || err != nil {
		t.Errorf("a group version not served: %v %v", list, err)
	}
}

// TestDiscoveryBounds: a server cannot make discovery hold more than its bound, and one that
// serves no core API (a local-mode Stencil server) maps its own groups only.
func TestDiscoveryBounds(t *testing.T) {
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"versions":["` + strings.Repeat("v", 17<<20) + `"]}`))
	}))
	defer huge.Close()
	d, err := client.NewDiscoveryForConfig(&rest.Config{Host: huge.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.NewMapper(d).KindFor(schema.GroupVersionResource{Resource: "pods"}); err == nil || !strings.Contains(err.Error(), "over 16 MiB") {
		t.Errorf("an answer over the bound: %v", err)
	}

	// Many group versions of a few MiB each: every one under the bound of one document, all
	// of them over the bound of a read.
	padding := strings.Repeat("x", 3<<20)
	many := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api":
			_, _ = w.Write([]byte(`{"versions":[]}`))
		case r.URL.Path == "/apis":
			var groups []string
			for i := range 40 {
				gv := fmt.Sprintf(`{"groupVersion":"g%d.example.com/v1","version":"v1"}`, i)
				groups = append(groups, fmt.Sprintf(`{"name":"g%d.example.com","versions":[%s],"preferredVersion":%s}`, i, gv, gv))
			}
			_, _ = w.Write([]byte(`{"groups":[` + strings.Join(groups, ",") + `]}`))
		default:
			_, _ = w.Write([]byte(`{"groupVersion":"` + strings.TrimPrefix(r.URL.Path, "/apis/") + `","resources":[{"name":"` + padding + `"}]}`))
		}
	}))
	defer many.Close()
	d, err = client.NewDiscoveryForConfig(&rest.Config{Host: many.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.NewMapper(d).KindFor(schema.GroupVersionResource{Resource: "pods"}); err == nil || !strings.Contains(err.Error(), "over 64 MiB in all") {
		t.Errorf("a discovery over the bound in all: %v", err)
	}

	local := clienttest.NewDiscoveryServer(t, served[1:2])
	d, err = client.NewDiscoveryForConfig(local.Config)
	if err != nil {
		t.Fatal(err)
	}
	m := client.NewMapper(d)
	if gvk, err := m.KindFor(schema.GroupVersionResource{Resource: "ev"}); err != nil || gvk.Group != "events.k8s.io" {
		t.Errorf("without a core API: %v %v", gvk, err)
	}
	if _, err := m.KindFor(schema.GroupVersionResource{Resource: "namespaces"}); !meta.IsNoMatchError(err) {
		t.Errorf("namespaces without a core API: %v", err)
	}
}
