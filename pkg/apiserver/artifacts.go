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
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/artifact/server"
	"stencil.dev/stencil/pkg/controller/appliers"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/publish"
)

// ArtifactConfig configures the artifact server, from which Flux fetches what published
// TemplateInstances render.
type ArtifactConfig struct {
	// Address is where it listens (host:port), plain HTTP.
	Address string
	// URL is its base URL as kustomize-controller reaches it.
	URL string
	// Options bound its cost; zero fields take server's defaults.
	Options server.Options
}

// artifactHandler builds the artifact server's handler over the instances' storage and the
// cluster's ConfigMaps, read as each instance's requester.
func (c completedConfig) artifactHandler(instances rest.Getter) (*server.Handler, error) {
	target, actAsSelf := c.ExtraConfig.ClusterConfig, false
	if opts := c.ExtraConfig.Instances; opts != nil && opts.Target != nil {
		target, actAsSelf = opts.Target, opts.ActAsSelf
	}
	impersonating, err := appliers.New(target, actAsSelf)
	if err != nil {
		return nil, err
	}
	store := &publish.Store{
		Instance: func(ctx context.Context, namespace, name string) (*v1alpha1.TemplateInstance, error) {
			obj, err := instances.Get(genericapirequest.WithNamespace(ctx, namespace), name, &metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			internal, ok := obj.(*templates.TemplateInstance)
			if !ok {
				return nil, fmt.Errorf("the instances' storage returned a %T", obj)
			}
			out := &v1alpha1.TemplateInstance{}
			return out, v1alpha1.Convert_templates_TemplateInstance_To_v1alpha1_TemplateInstance(internal, out, nil)
		},
		ConfigMaps: func(ctx context.Context, r *v1alpha1.TemplateInstanceRequester, namespace, name string) (*unstructured.Unstructured, error) {
			a, err := impersonating.For(r)
			if err != nil {
				return nil, err
			}
			return a.Get(ctx, instance.Object{Resource: publish.ConfigMaps, Namespace: namespace, Name: name})
		},
	}
	return server.NewHandler(store, c.ExtraConfig.Artifacts.Options), nil
}

// serveArtifacts listens on the artifact server's address at start and serves until the
// server stops; a port that cannot be bound fails the start.
func serveArtifacts(s *genericapiserver.GenericAPIServer, address string, handler http.Handler) {
	s.AddPostStartHookOrDie("stencil-artifact-server", func(hook genericapiserver.PostStartHookContext) error {
		l, err := net.Listen("tcp", address)
		if err != nil {
			return fmt.Errorf("the artifact server: %w", err)
		}
		srv := server.NewServer(address, handler)
		go func() {
			if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
				klog.ErrorS(err, "The artifact server stopped")
			}
		}()
		go func() {
			<-hook.Context.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
		}()
		klog.InfoS("Serving artifacts", "address", l.Addr().String())
		return nil
	})
}
