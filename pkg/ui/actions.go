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
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"stencil.dev/stencil/pkg/client"
	"stencil.dev/stencil/pkg/controller/templateinstance/inventory"
)

// FieldManager owns the fields the catalog applies when the cluster has no TemplateInstances.
const FieldManager = "stencil-ui"

// maxActionBody bounds what the pages may send to apply or to ask the status of.
const maxActionBody = 8 << 20

// actionTimeout bounds one apply or status round, whatever the number of objects.
const actionTimeout = time.Minute

// actions applies processed objects and reports their readiness, as the user, by the
// TemplateInstance controller's rules, so that both ways of creating agree on what is ready. They run here
// rather than through the proxy so that the pages never need write access to arbitrary paths.
type actions struct {
	dynamic dynamic.Interface
	mapper  *client.Mapper
	// discovery is the mapper's discovery (read once, again when the mapper is reset), also
	// asked what the cluster serves at all.
	discovery *client.Discovery
	// answers are the processing answers the pages may apply.
	answers *answers
}

func newActions(config *rest.Config, answers *answers) (*actions, error) {
	// Discovery is asked for every page load's configuration: a cluster that does not answer
	// must not hold the page for ever.
	discoveryConfig := rest.CopyConfig(config)
	if discoveryConfig.Timeout == 0 {
		discoveryConfig.Timeout = actionTimeout
	}
	dc, err := client.NewDiscoveryForConfig(discoveryConfig)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return &actions{dynamic: dyn, mapper: client.NewMapper(dc), discovery: dc, answers: answers}, nil
}

// applyRequest is the body of POST /ui/api/apply: the id of a processing answer this
// server kept (AnswerHeader) and the namespace to apply it in. The objects are never taken
// from the request: only those the cluster answered are applied.
type applyRequest struct {
	Namespace string `json:"namespace"`
	Answer    string `json:"answer"`
}

// ObjectState is one object's outcome: applied or not, present, ready, and why not.
type ObjectState struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Exists     bool   `json:"exists"`
	Ready      bool   `json:"ready"`
	// Message says what is awaited, or why the object could not be applied or read.
	Message string `json:"message,omitempty"`
}

// serveApply applies the objects of a processing answer this server kept, in the namespace
// chosen, with server-side apply, in order, and reports each one; one refusal by the cluster
// does not stop the others, and every refusal is named. An answer with an object the catalog
// does not apply (one that names another namespace, or none can be given: a cluster-scoped
// one) is refused whole with a 422 naming them, before anything is applied.
func (a *actions) serveApply(w http.ResponseWriter, r *http.Request) {
	var req applyRequest
	if !decodeStrictBody(w, r, &req) {
		return
	}
	if errs := validation.IsDNS1123Label(req.Namespace); len(errs) > 0 {
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("namespace %q: %s", req.Namespace, strings.Join(errs, "; ")))
		return
	}
	raws, ok := a.answers.get(req.Answer)
	if !ok {
		writeError(w, http.StatusNotFound, "no processing answer with this id is kept here: process the template again, then create")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	type target struct {
		obj      *unstructured.Unstructured
		resource dynamic.ResourceInterface
	}
	targets := make([]target, 0, len(raws))
	var refused []string
	for i, raw := range raws {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw); err != nil {
			refused = append(refused, fmt.Sprintf("items[%d]: %v", i, err))
			continue
		}
		resource, namespaced, err := a.resourceFor(obj)
		switch {
		case err != nil:
			refused = append(refused, fmt.Sprintf("%s %s: %v", obj.GetKind(), obj.GetName(), err))
		case !namespaced:
			refused = append(refused, fmt.Sprintf("%s %s is cluster-scoped: the catalog applies objects in the chosen namespace only", obj.GetKind(), obj.GetName()))
		case obj.GetNamespace() != "" && obj.GetNamespace() != req.Namespace:
			refused = append(refused, fmt.Sprintf("%s %s names namespace %s: the catalog applies objects in the chosen namespace, %s, only",
				obj.GetKind(), obj.GetName(), obj.GetNamespace(), req.Namespace))
		default:
			obj.SetNamespace(req.Namespace)
			targets = append(targets, target{obj, resource(req.Namespace)})
		}
	}
	if len(refused) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "nothing was applied: "+strings.Join(refused, "; "))
		return
	}
	out := make([]ObjectState, 0, len(targets))
	for _, t := range targets {
		state := stateOf(t.obj, req.Namespace)
		applied, err := t.resource.Apply(ctx, t.obj.GetName(), t.obj, metav1.ApplyOptions{FieldManager: FieldManager})
		if err == nil {
			state.Exists = true
			state.Ready, state.Message = inventory.Ready(applied)
		} else {
			state.Message = err.Error()
		}
		out = append(out, state)
	}
	writeJSON(w, http.StatusOK, out)
}

// statusRequest is the body of POST /ui/api/status.
type statusRequest struct {
	Objects []ObjectState `json:"objects"`
}

// serveStatus reads each object and says whether it is ready.
func (a *actions) serveStatus(w http.ResponseWriter, r *http.Request) {
	var req statusRequest
	if !decodeBody(w, r, &req) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), actionTimeout)
	defer cancel()
	out := make([]ObjectState, 0, len(req.Objects))
	for _, ref := range req.Objects {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion(ref.APIVersion)
		obj.SetKind(ref.Kind)
		state := ObjectState{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
		resource, _, err := a.resourceFor(obj)
		if err == nil {
			var live *unstructured.Unstructured
			live, err = resource(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			switch {
			case err == nil:
				state.Exists = true
				state.Ready, state.Message = inventory.Ready(live)
			case apierrors.IsNotFound(err):
				err, state.Message = nil, "not found"
			}
		}
		if err != nil {
			state.Message = err.Error()
		}
		out = append(out, state)
	}
	writeJSON(w, http.StatusOK, out)
}

// resourceFor finds the resource of an object's kind through discovery, asking again once when
// the kind is unknown (a CRD created a moment ago).
func (a *actions) resourceFor(obj *unstructured.Unstructured) (func(string) dynamic.ResourceInterface, bool, error) {
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, false, fmt.Errorf("the object has no apiVersion or kind")
	}
	mapping, err := inventory.Mapping(a.mapper, gvk)
	if err != nil {
		return nil, false, err
	}
	namespaced := inventory.Namespaced(mapping)
	return func(namespace string) dynamic.ResourceInterface {
		if namespaced {
			return a.dynamic.Resource(mapping.Resource).Namespace(namespace)
		}
		return a.dynamic.Resource(mapping.Resource)
	}, namespaced, nil
}

// stateOf names an object before anything is known of it.
func stateOf(obj *unstructured.Unstructured, namespace string) ObjectState {
	if ns := obj.GetNamespace(); ns != "" {
		namespace = ns
	}
	return ObjectState{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: namespace, Name: obj.GetName()}
}

// decodeBody reads a bounded JSON body, answering 400 itself when it cannot.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	return decode(w, r, v, false)
}

// decodeStrictBody is decodeBody refusing fields v does not have: a body that names what the
// endpoint does not take from a body (objects to apply) is refused, not ignored.
func decodeStrictBody(w http.ResponseWriter, r *http.Request, v any) bool {
	return decode(w, r, v, true)
}

func decode(w http.ResponseWriter, r *http.Request, v any, strict bool) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxActionBody))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "the request body is not what this endpoint reads: "+err.Error())
		return false
	}
	return true
}
