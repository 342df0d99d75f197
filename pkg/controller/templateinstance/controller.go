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

// Package templateinstance is the controller of TemplateInstances. It runs inside
// stencil-apiserver in cluster mode, on the replica that holds a Lease, and acts for each
// instance as its requester: what a pass decides before it acts (the template and its
// revision, the values it reads, the render through the processing endpoints' Renderer, the
// plan and the authorization rule of the requester and every author) is the pass library's
// (pkg/controller/instance), which the preview calls too; the controller then checks every
// object with a server-side dry-run as the requester, applies them with server-side apply
// under impersonation (or publishes them as an artifact Flux applies), records the inventory,
// prunes, reports readiness and Events, and uninstalls through a finalizer.
//
// The controller is built from narrow parts (Config): a clientset of this server's API for the
// instances, a TemplateReader, a Renderer, the Appliers that act as each requester in the
// target cluster, a RESTMapper and an Authorizer. New builds the server's parts from
// configs; the unit tests build them over client-go's fake clients (instance/instancetest).
package templateinstance

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"stencil.dev/stencil/pkg/controller/instance"
	"stencil.dev/stencil/pkg/controller/preview"
	"stencil.dev/stencil/pkg/controller/rollout"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
	listers "stencil.dev/stencil/pkg/generated/listers/templates/v1alpha1"
)

// Config is what a controller is built from.
type Config struct {
	// Instances reads and writes the TemplateInstances, in this server's own API.
	Instances clientset.Interface
	// Informers returns a new informer factory over Instances at the start of each term of
	// leadership, which starts and stops it: a replica that does not lead caches nothing. Nil
	// means one with a resync every 10 minutes.
	Informers func() informers.SharedInformerFactory
	// Templates reads the Templates that instances reference.
	Templates instance.TemplateReader
	// Renderer renders templates as the processing endpoints do.
	Renderer instance.Renderer
	// Appliers act in the target cluster as each requester.
	Appliers instance.Appliers
	// Mapper maps the rendered objects' kinds to the target cluster's resources.
	Mapper meta.RESTMapper
	// Authorizer answers the SubjectAccessReviews about requesters and template authors.
	Authorizer authorizer.Authorizer
	// SelfReview checks a requester's rights on the objects with the Applier's MayI (a
	// SelfSubjectAccessReview of the target cluster) instead of Authorizer: local mode's
	// --target-kubeconfig, whose own identity acts for the only local user.
	SelfReview bool
	// Election, when set, elects one leader among the replicas; nil leads at once.
	Election *Election
	// Workers reconcile instances in parallel; 0 means DefaultWorkers.
	Workers int
	// Previewer computes the plans that rollouts started with a preview's plan hash are
	// checked against; nil refuses every such rollout.
	Previewer *preview.Previewer
	// Now is the rollouts' clock; nil is time.Now.
	Now func() time.Time
	// Recorder, when set, records Events of the instances' conditions and of the rollouts'
	// steps (events.go).
	Recorder record.EventRecorder
	// HashKey keys the hash of what an instance renders (status.templateRevision.appliedHash),
	// which anyone who may read the instance reads: without the server's key, nobody can
	// test a guess of a value the objects hold against it. Every replica has the same key.
	HashKey []byte
	// ApplyCreatedWithoutCluster applies the instances created while the server had no
	// cluster without asking each for consent (nocluster.go).
	ApplyCreatedWithoutCluster bool
	// Publishing publishes the renders of instances whose delivery is ExternalArtifact; nil
	// fails them.
	Publishing *Publishing
}

// Election configures the leader election of the replicas over one Lease.
type Election struct {
	// Client holds the Lease.
	Client kubernetes.Interface
	// Namespace and Name name the Lease.
	Namespace, Name string
	// LeaseDuration, RenewDeadline and RetryPeriod time the election.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Controller reconciles TemplateInstances. What it caches and queues belongs to one term of
// leadership (run.go).
type Controller struct {
	cfg Config
	// pass is the library of what a pass does up to the apply, over cfg's parts.
	pass     *instance.Planner
	rollouts *rollout.Reconciler
	// broadcaster sends the Recorder's Events, when New made them; shut down by Run.
	broadcaster record.EventBroadcaster
}

// caches are what one term of leadership reads from its informers.
type caches struct {
	instances listers.TemplateInstanceLister
	// byTemplate indexes the instances by the Template they reference.
	byTemplate cache.Indexer
	// templates are the Templates, whose rollouts are reconciled from the cache.
	templates listers.TemplateLister
	// synced tell that the informers have synced.
	synced []cache.InformerSynced
}

// NewController returns a controller of cfg; Run starts it.
func NewController(cfg Config) (*Controller, error) {
	if cfg.Instances == nil || cfg.Appliers == nil {
		return nil, errors.New("templateinstance: Config needs Instances and Appliers")
	}
	pass, err := newPlanner(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Informers == nil {
		instances := cfg.Instances
		cfg.Informers = func() informers.SharedInformerFactory {
			return informers.NewSharedInformerFactory(instances, 10*time.Minute)
		}
	}
	return &Controller{cfg: cfg, pass: pass, rollouts: newRollouts(cfg)}, nil
}

// newPlanner is the pass library over cfg's parts.
func newPlanner(cfg Config) (*instance.Planner, error) {
	return instance.New(instance.Config{Templates: cfg.Templates, Renderer: cfg.Renderer, Mapper: cfg.Mapper,
		Authorizer: cfg.Authorizer, SelfReview: cfg.SelfReview, HashKey: cfg.HashKey, CheckRendered: cfg.Publishing.checkRendered})
}
