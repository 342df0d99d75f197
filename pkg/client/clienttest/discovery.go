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

// Package clienttest serves what pkg/client's discovery reads, for the unit tests of what
// maps kinds through it.
package clienttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// DiscoveryServer serves /api, /apis and the resource lists of lists, each group's versions
// in the order given (the first its preferred), until the test ends. Reads counts the
// requests of /apis.
type DiscoveryServer struct {
	Config *rest.Config
	Reads  atomic.Int32
}

// NewDiscoveryServer starts a server of lists.
func NewDiscoveryServer(t *testing.T, lists []*metav1.APIResourceList) *DiscoveryServer {
	t.Helper()
	core := &metav1.APIVersions{}
	groups := &metav1.APIGroupList{}
	byPath := map[string]any{"/api": core, "/apis": groups}
	index := map[string]int{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		if gv.Group == "" {
			core.Versions = append(core.Versions, gv.Version)
			byPath["/api/"+gv.Version] = list
			continue
		}
		byPath["/apis/"+list.GroupVersion] = list
		version := metav1.GroupVersionForDiscovery{GroupVersion: list.GroupVersion, Version: gv.Version}
		i, seen := index[gv.Group]
		if !seen {
			index[gv.Group] = len(groups.Groups)
			groups.Groups = append(groups.Groups, metav1.APIGroup{Name: gv.Group, PreferredVersion: version})
			i = len(groups.Groups) - 1
		}
		groups.Groups[i].Versions = append(groups.Groups[i].Versions, version)
	}
	s := &DiscoveryServer{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/apis" {
			s.Reads.Add(1)
		}
		doc, ok := byPath[strings.TrimSuffix(r.URL.Path, "/")]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(server.Close)
	s.Config = &rest.Config{Host: server.URL}
	return s
}
