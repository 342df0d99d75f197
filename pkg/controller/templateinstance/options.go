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

package templateinstance

import (
	"time"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"stencil.dev/stencil/pkg/artifact/server"
	"stencil.dev/stencil/pkg/controller/appliers"
	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/preview"
	"stencil.dev/stencil/pkg/controller/publish"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	"stencil.dev/stencil/pkg/registry/templates/templaterevision"
)

// Options configure the controller of a server: New builds its parts from them.
type Options struct {
	// Target reaches the cluster the objects are created in, with the controller's own
	// identity (its ServiceAccount); requests for a requester impersonate them.
	Target *restclient.Config
	// Loopback reaches this server's own API, for the instances and their status.
	Loopback *restclient.Config
	// Templates reads the stored Templates; the namespace comes from the context.
	Templates rest.Getter
	// Revisions reads the Templates' revisions.
	Revisions *templaterevision.Writer
	// Renderer is the processing endpoints' adapter: the same bytes for the same input.
	Renderer instance.Renderer
	// Authorizer answers the SubjectAccessReviews asked for a requester.
	Authorizer authorizer.Authorizer
	// LeaseNamespace holds the Lease; LeaseName names it.
	LeaseNamespace, LeaseName string
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Workers reconcile instances in parallel.
	Workers int
	// ActAsSelf acts with Target's own identity instead of impersonating requesters, and
	// checks objects with SelfSubjectAccessReviews: local mode's --target-kubeconfig, whose
	// owner is the only local user. Without LeaseNamespace there is no election.
	ActAsSelf bool
	// Previewer computes the plans rollouts are checked against (templates/preview's).
	Previewer *preview.Previewer
	// Artifacts, when set, publishes the renders of instances whose delivery is
	// ExternalArtifact, served at this base URL.
	Artifacts *ArtifactOptions
	// HashKey keys the hashes of what instances render (Config.HashKey).
	HashKey []byte
	// ApplyCreatedWithoutCluster applies the instances created while the server had no
	// cluster, each without its own consent (Config.ApplyCreatedWithoutCluster).
	ApplyCreatedWithoutCluster bool
}

// ArtifactOptions configure the publishing of renders.
type ArtifactOptions struct {
	// URL is the artifact server's base URL as kustomize-controller reaches it.
	URL string
	// Published hands what was stored to this process's artifact server.
	Published func(namespace, name string, s *server.Stored)
}

// Defaults of Options, as client-go's core clients and kube-controller-manager have them.
const (
	DefaultLeaseName     = "stencil-templateinstance-controller"
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultWorkers       = 8
)

// New returns the controller of a server, with clients of the loopback and target configs;
// Run starts it.
func New(opts Options) (*Controller, error) {
	loopback := restclient.CopyConfig(opts.Loopback)
	loopback.QPS, loopback.Burst = 200, 400
	instances, err := clientset.NewForConfig(loopback)
	if err != nil {
		return nil, err
	}
	target := restclient.CopyConfig(opts.Target)
	target.QPS, target.Burst = 200, 400
	impersonating, err := appliers.New(target, opts.ActAsSelf)
	if err != nil {
		return nil, err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(target)
	if err != nil {
		return nil, err
	}
	cfg := Config{
		Instances: instances, Templates: instance.StorageTemplates{Getter: opts.Templates, Revisions: opts.Revisions}, Renderer: opts.Renderer,
		Appliers: impersonating, Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco)),
		Authorizer: opts.Authorizer, SelfReview: opts.ActAsSelf, Workers: opts.Workers, Previewer: opts.Previewer, HashKey: opts.HashKey,
		ApplyCreatedWithoutCluster: opts.ApplyCreatedWithoutCluster,
	}
	if a := opts.Artifacts; a != nil {
		cfg.Publishing = &Publishing{Publisher: &publish.Publisher{URL: a.URL, Published: a.Published}, Clients: impersonating.PublishClient}
	}
	kube, err := kubernetes.NewForConfig(target)
	if err != nil {
		return nil, err
	}
	recorder, broadcaster := NewRecorder(kube)
	cfg.Recorder = recorder
	if opts.LeaseNamespace != "" {
		name := opts.LeaseName
		if name == "" {
			name = DefaultLeaseName
		}
		cfg.Election = &Election{Client: kube, Namespace: opts.LeaseNamespace, Name: name,
			LeaseDuration: opts.LeaseDuration, RenewDeadline: opts.RenewDeadline, RetryPeriod: opts.RetryPeriod}
	}
	c, err := NewController(cfg)
	if err != nil {
		broadcaster.Shutdown()
		return nil, err
	}
	c.broadcaster = broadcaster
	return c, nil
}
