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
	"context"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
)

// conflictRetry is how soon an instance is looked at again after a write conflict.
const conflictRetry = 200 * time.Millisecond

// Run takes part in the leader election until ctx is done; while it leads, it reconciles.
func (c *Controller) Run(ctx context.Context) {
	if c.broadcaster != nil {
		defer c.broadcaster.Shutdown()
	}
	defer c.queue.ShutDown()
	defer c.rolloutQueue.ShutDown()
	e := c.cfg.Election
	if e == nil {
		c.lead(ctx)
		return
	}
	hostname, _ := os.Hostname()
	// The process id tells replicas in one pod (or on one test machine) apart.
	identity := hostname + "_" + strconv.Itoa(os.Getpid()) + "_" + uuid.NewString()
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, e.Namespace, e.Name,
		e.Client.CoreV1(), e.Client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: identity})
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	// A lost lease ends the term; the replica then stands for election again.
	for ctx.Err() == nil {
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock: lock, Name: e.Name, ReleaseOnCancel: true,
			LeaseDuration: e.LeaseDuration, RenewDeadline: e.RenewDeadline, RetryPeriod: e.RetryPeriod,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: c.lead,
				OnStoppedLeading: func() { klog.Infof("templateinstance controller: %s stopped leading", identity) },
			},
		})
	}
}

// lead reconciles until leadCtx ends with the term. Each term starts informers of its own and
// stops them at its end, so that only the leader caches the instances.
func (c *Controller) lead(leadCtx context.Context) {
	klog.Infof("templateinstance controller: leading")
	factory := c.cfg.Informers()
	defer factory.Shutdown()
	synced, err := c.watch(factory)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	factory.Start(leadCtx.Done())
	if !cache.WaitForCacheSync(leadCtx.Done(), synced...) {
		return
	}
	for i := 0; i < c.cfg.Workers; i++ {
		go wait.UntilWithContext(leadCtx, c.work, time.Second)
	}
	go wait.UntilWithContext(leadCtx, c.workRollouts, time.Second)
	<-leadCtx.Done()
}

// watch sets up the informers of one term: the instances, cached and indexed by the Template
// they reference, and the Templates, whose changes queue their instances (an upgrade). It
// returns what tells that their caches have synced.
func (c *Controller) watch(factory informers.SharedInformerFactory) ([]cache.InformerSynced, error) {
	instanceInformer := factory.Templates().V1alpha1().TemplateInstances()
	templateLister := factory.Templates().V1alpha1().Templates()
	templateInformer := templateLister.Informer()
	if err := instanceInformer.Informer().AddIndexers(cache.Indexers{byTemplate: indexByTemplate}); err != nil {
		return nil, err
	}
	c.caches.Store(&caches{instances: instanceInformer.Lister(), byTemplate: instanceInformer.Informer().GetIndexer(), templates: templateLister.Lister()})
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
		// An instance's progress is its Template's rollout's too.
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if ti, ok := obj.(*templatesv1.TemplateInstance); ok && ti.Spec.TemplateRef != nil {
			c.enqueueRollout(ti.Namespace, ti.Spec.TemplateRef.Name)
		}
	}
	if _, err := instanceInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue}); err != nil {
		return nil, err
	}
	if _, err := templateInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.templateChanged, UpdateFunc: c.templateUpdated, DeleteFunc: c.templateChanged}); err != nil {
		return nil, err
	}
	return []cache.InformerSynced{instanceInformer.Informer().HasSynced, templateInformer.HasSynced}, nil
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

// templateChanged queues every instance of a Template that was added, changed or deleted.
func (c *Controller) templateChanged(obj interface{}) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if t, ok := obj.(*templatesv1.Template); ok {
		c.enqueueInstancesOf(t.Namespace, t.Name)
		c.enqueueRollout(t.Namespace, t.Name)
	}
}

// templateUpdated queues the Template's rollout, and its instances when the change may move
// some of them (movesInstances).
func (c *Controller) templateUpdated(oldObj, obj interface{}) {
	t, ok := obj.(*templatesv1.Template)
	if !ok {
		return
	}
	old, _ := oldObj.(*templatesv1.Template)
	if movesInstances(old, t) {
		c.enqueueInstancesOf(t.Namespace, t.Name)
	}
	c.enqueueRollout(t.Namespace, t.Name)
}

// enqueueInstancesOf queues every instance of a Template: a change to it is an upgrade.
func (c *Controller) enqueueInstancesOf(namespace, name string) {
	caches := c.caches.Load()
	if caches == nil {
		return
	}
	objs, err := caches.byTemplate.ByIndex(byTemplate, namespace+"/"+name)
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
	caches := c.caches.Load()
	if caches == nil {
		return 0, nil
	}
	cached, err := caches.instances.TemplateInstances(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ti := cached.DeepCopy()
	ctx = withPassEvents(ctx, ti)
	if ti.DeletionTimestamp != nil {
		return c.uninstall(ctx, ti)
	}
	return c.reconcile(ctx, ti)
}
