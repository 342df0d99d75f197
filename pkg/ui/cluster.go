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

package ui

import (
	"context"
	"net/http"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// servesCore says whether the cluster serves resource in the core API (v1), from discovery,
// asked once per run. A local-mode Stencil server serves Stencil's groups only: the pages do
// not ask it for what it cannot answer (namespaces), and say that it creates nothing.
func (a *actions) servesCore(ctx context.Context, resource string) (bool, error) {
	list, err := a.discovery.ServedResources(ctx, "v1")
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	case list == nil:
		return false, nil
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return true, nil
		}
	}
	return false, nil
}

// namespaceList is the answer of GET /ui/api/namespaces: the namespaces the user may list, or
// none and why, in which case the page offers a text field. A refusal is an answer, not an
// error: the page's request never fails for it, and nothing is logged.
type namespaceList struct {
	Names  []string `json:"names"`
	Reason string   `json:"reason,omitempty"`
}

// serveNamespaces lists the namespaces as the user, when the cluster serves them at all.
func (a *actions) serveNamespaces(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	writeJSON(w, http.StatusOK, a.namespaces(ctx))
}

func (a *actions) namespaces(ctx context.Context) namespaceList {
	out := namespaceList{Names: []string{}}
	served, err := a.servesCore(ctx, "namespaces")
	if err != nil {
		out.Reason = "the cluster's discovery did not answer: " + err.Error()
		return out
	}
	if !served {
		out.Reason = "the server serves no namespaces (a local-mode Stencil server serves its own API only)"
		return out
	}
	list, err := a.dynamic.Resource(namespacesResource).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsForbidden(err):
		out.Reason = "you may not list namespaces"
	case err != nil:
		out.Reason = "the namespaces could not be listed: " + err.Error()
	default:
		for _, ns := range list.Items {
			out.Names = append(out.Names, ns.GetName())
		}
		sort.Strings(out.Names)
	}
	return out
}
