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
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/handlers"
	"k8s.io/apiserver/pkg/endpoints/metrics"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// processingRoutes serves the POST of processedtemplates (of each group served) with a
// handler of its own (processingHandler: the body's bytes to the answer's in one pass), which
// hands every request it would not answer exactly as the API server's create handler
// (handlers.CreateResource, what the API installer routes the POST to) to that handler. Both
// have a request scope built as the installer builds it, but for one thing: processing stores
// nothing, so it tracks no managed fields. The installer's scope gives every create a field
// manager, which converts the whole request object, every object of the template included,
// into structured-merge-diff's typed values to record who set which field of an object that
// is never stored: for a template in the request, more work than processing it. Here the
// field manager finds no live object to record on (a virtual resource has none) and leaves
// the request as it came.
//
// The installer's routes stay for discovery, OpenAPI and every other verb; these handlers
// stand in front of them, inside the server's filters, for the one request they serve.
type processingRoutes struct {
	next   http.Handler
	routes map[schema.GroupVersionResource]http.Handler
}

// ServeHTTP serves a processing POST, and passes any other request on.
func (p *processingRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if route := p.route(r); route != nil {
		route.ServeHTTP(w, r)
		return
	}
	p.next.ServeHTTP(w, r)
}

// route is the processing handler of r, nil when r is not a processing POST.
func (p *processingRoutes) route(r *http.Request) http.Handler {
	if info, ok := request.RequestInfoFrom(r.Context()); ok && info.IsResourceRequest && info.Verb == "create" &&
		info.Subresource == "" && info.Name == "" && info.Namespace != "" {
		return p.routes[schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}]
	}
	return nil
}

// mayFinish says r goes to a processing handler, which may finish its body (finishBody): the
// body filter reads such a JSON body into a buffer it can use again (body_pool.go).
func (p *processingRoutes) mayFinish(r *http.Request) bool { return p.route(r) != nil }

// processingStorage is what the processedtemplates storage is to the installer.
type processingStorage interface {
	rest.Creater
	rest.GroupVersionAcceptor
	rest.GroupVersionKindProvider
}

// processingScope is what a processing route needs of the server.
type processingScope struct {
	serializer   runtime.NegotiatedSerializer
	admission    admission.Interface
	maxBodyBytes int64
}

// add routes the POST of resource in gv to storage: to its processingHandler, which hands
// what it does not answer itself to the installer's create handler, built here as the
// installer builds it.
func (p *processingRoutes) add(gv schema.GroupVersion, resource string, storage processingStorage, s processingScope) error {
	scope, err := processingRequestScope(gv, resource, storage, s)
	if err != nil {
		return err
	}
	fast, err := newProcessingHandler(storage, scope, s.admission, handlers.CreateResource(storage, scope, s.admission))
	if err != nil {
		return err
	}
	if p.routes == nil {
		p.routes = map[schema.GroupVersionResource]http.Handler{}
	}
	p.routes[gv.WithResource(resource)] = instrumentProcessing(gv, resource, fast.ServeHTTP)
	return nil
}

// instrumentProcessing records the request metrics of a processing POST, as the installer
// records those of every route.
func instrumentProcessing(gv schema.GroupVersion, resource string, handler http.HandlerFunc) http.Handler {
	return metrics.InstrumentHandlerFunc(request.MethodPost, gv.Group, gv.Version, resource, "", "namespace",
		metrics.APIServerComponent, false, "", handler)
}

// processingRequestScope is the request scope the installer builds for a create of resource,
// but for its field manager (see processingRoutes).
func processingRequestScope(gv schema.GroupVersion, resource string, storage processingStorage, s processingScope) (*handlers.RequestScope, error) {
	kind := storage.GroupVersionKind(gv)
	hub := schema.GroupVersion{Group: gv.Group, Version: runtime.APIVersionInternal}
	creater := noLiveObject{ObjectCreater: Scheme, kind: kind}
	fieldManager, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(),
		runtime.UnsafeObjectConvertor(Scheme), Scheme, creater, kind, hub, "", nil)
	if err != nil {
		return nil, err
	}
	scope := &handlers.RequestScope{
		Namer:                       handlers.ContextBasedNaming{Namer: runtime.Namer(meta.NewAccessor()), ClusterScoped: false},
		Serializer:                  s.serializer,
		ParameterCodec:              metav1.ParameterCodec,
		Creater:                     creater,
		Convertor:                   Scheme,
		Defaulter:                   Scheme,
		Typer:                       Scheme,
		UnsafeConvertor:             runtime.UnsafeObjectConvertor(Scheme),
		FieldManager:                fieldManager,
		Resource:                    gv.WithResource(resource),
		Kind:                        kind,
		AcceptsGroupVersionDelegate: storage,
		MetaGroupVersion:            metav1.SchemeGroupVersion,
		HubGroupVersion:             hub,
		MaxRequestBodyBytes:         s.maxBodyBytes,
	}
	if table, ok := storage.(rest.TableConvertor); ok {
		scope.TableConvertor = table
	}
	return scope, nil
}

// noLiveObject is the scheme, but for the kind of a processing request, of which it makes an
// object without metadata: the live object of a create of a resource that stores nothing.
// The create handler asks it for the object a create replaces, for the field manager to record
// managed fields on; finding no metadata, the field manager leaves the request alone, as it
// does for every object without metadata.
type noLiveObject struct {
	runtime.ObjectCreater
	kind schema.GroupVersionKind
}

func (c noLiveObject) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	if kind == c.kind {
		return &nothingStored{}, nil
	}
	return c.ObjectCreater.New(kind)
}

// nothingStored is the live object of a processing request: there is none.
type nothingStored struct{ metav1.TypeMeta }

func (n *nothingStored) DeepCopyObject() runtime.Object { return &nothingStored{TypeMeta: n.TypeMeta} }
