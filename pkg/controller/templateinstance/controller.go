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
// instance as its requester: it renders the template through the same Renderer as the
// processing endpoints, checks every object with a SubjectAccessReview and a server-side
// dry-run as that user, applies them with server-side apply under impersonation, records the
// inventory, prunes, reports readiness, and uninstalls through a finalizer.
package templateinstance

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	clientset "stencil.dev/stencil/pkg/generated/clientset/versioned"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
	listers "stencil.dev/stencil/pkg/generated/listers/templates/v1alpha1"
	"stencil.dev/stencil/pkg/render"
)

// Options configure the controller.
type Options struct {
	// Target reaches the cluster the objects are created in, with the controller's own
	// identity (its ServiceAccount); requests for a requester impersonate them.
	Target *restclient.Config
	// Loopback reaches this server's own API, for the instances and their status.
	Loopback *restclient.Config
	// Templates reads the stored Templates; the namespace comes from the context.
	Templates rest.Getter
	// Renderer is the processing endpoints' adapter: the same bytes for the same input.
	Renderer Renderer
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
}

// Renderer renders a template as the processing endpoints do and tells which stored Templates
// it imported; renderrest.Adapter is the server's.
type Renderer interface {
	RenderObjects(ctx context.Context, in render.Input) (*render.Output, error)
}

// Defaults of Options, as client-go's core clients and kube-controller-manager have them.
const (
	DefaultLeaseName     = "stencil-templateinstance-controller"
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultWorkers       = 8
)

// conflictRetry is how soon an instance is looked at again after a write conflict.
const conflictRetry = 200 * time.Millisecond

// Controller reconciles TemplateInstances.
type Controller struct {
	opts      Options
	instances clientset.Interface
	clients   *clientCache
	queue     workqueue.TypedRateLimitingInterface[string]
	lister    listers.TemplateInstanceLister
	templates listers.TemplateLister
	indexer   cache.Indexer
}

// New returns a controller; Run starts it.
func New(opts Options) (*Controller, error) {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.LeaseName == "" {
		opts.LeaseName = DefaultLeaseName
	}
	loopback := restclient.CopyConfig(opts.Loopback)
	loopback.QPS, loopback.Burst = 200, 400
	instances, err := clientset.NewForConfig(loopback)
	if err != nil {
		return nil, err
	}
	target := restclient.CopyConfig(opts.Target)
	target.QPS, target.Burst = 200, 400
	clients, err := newClientCache(target, opts.ActAsSelf)
	if err != nil {
		return nil, err
	}
	opts.Target = target
	return &Controller{
		opts: opts, instances: instances, clients: clients,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "stencil_templateinstance"}),
	}, nil
}

// Run takes part in the leader election until ctx is done; while it leads, it reconciles.
func (c *Controller) Run(ctx context.Context) {
	defer c.queue.ShutDown()
	if c.opts.LeaseNamespace == "" {
		c.lead(ctx)
		return
	}
	hostname, _ := os.Hostname()
	// The process id tells replicas in one pod (or on one test machine) apart.
	identity := hostname + "_" + strconv.Itoa(os.Getpid()) + "_" + uuid.NewString()
	kube, err := kubernetes.NewForConfig(c.opts.Target)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, c.opts.LeaseNamespace, c.opts.LeaseName,
		kube.CoreV1(), kube.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	// A lost lease ends the term; the replica then stands for election again.
	for ctx.Err() == nil {
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock: lock, Name: c.opts.LeaseName, ReleaseOnCancel: true,
			LeaseDuration: c.opts.LeaseDuration, RenewDeadline: c.opts.RenewDeadline, RetryPeriod: c.opts.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: c.lead,
				OnStoppedLeading: func() { klog.Infof("templateinstance controller: %s stopped leading", identity) },
			},
		})
	}
}

// lead reconciles until leadCtx ends with the term.
func (c *Controller) lead(leadCtx context.Context) {
	klog.Infof("templateinstance controller: leading")
	factory := informers.NewSharedInformerFactory(c.instances, 10*time.Minute)
	instanceInformer := factory.Templates().V1alpha1().TemplateInstances()
	templateInformer := factory.Templates().V1alpha1().Templates()
	if err := instanceInformer.Informer().AddIndexers(cache.Indexers{byTemplate: indexByTemplate}); err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.lister = instanceInformer.Lister()
	c.indexer = instanceInformer.Informer().GetIndexer()
	c.templates = templateInformer.Lister()
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	_, _ = instanceInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue})
	templateChanged := func(obj interface{}) {
		if t, ok := obj.(*templatesv1.Template); ok {
			c.enqueueInstancesOf(t.Namespace, t.Name)
		} else if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			if t, ok := tomb.Obj.(*templatesv1.Template); ok {
				c.enqueueInstancesOf(t.Namespace, t.Name)
			}
		}
	}
	_, _ = templateInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: templateChanged, UpdateFunc: func(_, obj interface{}) { templateChanged(obj) }, DeleteFunc: templateChanged})
	factory.Start(leadCtx.Done())
	if !cache.WaitForCacheSync(leadCtx.Done(), instanceInformer.Informer().HasSynced, templateInformer.Informer().HasSynced) {
		return
	}
	for i := 0; i < c.opts.Workers; i++ {
		go wait.UntilWithContext(leadCtx, c.work, time.Second)
	}
	<-leadCtx.Done()
	factory.Shutdown()
}

const byTemplate = "byTemplate"

// indexByTemplate indexes instances by namespace/template for the Templates they reference.
func indexByTemplate(obj interface{}) ([]string, error) {
	ti, ok := obj.(*templatesv1.TemplateInstance)
	if !ok || ti.Spec.TemplateRef == nil {
		return nil, nil
	}
	return []string{ti.Namespace + "/" + ti.Spec.TemplateRef.Name}, nil
}

// enqueueInstancesOf queues every instance of a Template: a change to it is an upgrade.
func (c *Controller) enqueueInstancesOf(namespace, name string) {
	objs, err := c.indexer.ByIndex(byTemplate, namespace+"/"+name)
	if err != nil {
		return
	}
	for _, obj := range objs {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
}

func (c *Controller) work(ctx context.Context) {
	for c.next(ctx) {
	}
}

// next reconciles one instance. An error is retried with the queue's exponential backoff;
// a result asking for a later look is queued after its delay.
func (c *Controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return false
	}
	requeueAfter, err := c.sync(ctx, key)
	switch {
	case apierrors.IsConflict(err):
		// The informer's copy was older than the stored instance: look again once it caught
		// up, without growing the backoff that failures get.
		c.queue.AddAfter(key, conflictRetry)
	case err != nil:
		if err != errRetry {
			klog.Infof("templateinstance %s: %v (retrying with backoff)", key, err)
		}
		c.queue.AddRateLimited(key)
	case requeueAfter > 0:
		c.queue.Forget(key)
		c.queue.AddAfter(key, requeueAfter)
	default:
		c.queue.Forget(key)
	}
	return true
}

// sync reads the instance from the cache and reconciles it.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	cached, err := c.lister.TemplateInstances(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ti := cached.DeepCopy()
	if ti.DeletionTimestamp != nil {
		return c.uninstall(ctx, ti)
	}
	return c.reconcile(ctx, ti)
}
