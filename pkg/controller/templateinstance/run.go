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
	"sync"
	"time"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/util/workqueue"
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

// term is one term of leadership: the caches of its informers and its queues, which start
// and end with it. A worker works the queues of its own term only, and they are shut down at
// its end: the next term's informers list every instance and Template again and queue each
// in the next term's queues, so that no key is taken by a worker of an ended term and dropped
// (it would wait for the next resync, 10 minutes).
type term struct {
	caches
	queue workqueue.TypedRateLimitingInterface[string]
	// rolloutQueue holds the Templates whose rollout to look at, as namespace/name.
	rolloutQueue workqueue.TypedRateLimitingInterface[string]
}

// newTerm returns a term with empty caches and new queues.
func newTerm() *term {
	return &term{
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "stencil_templateinstance"}),
		rolloutQueue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, 5*time.Minute),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "stencil_template_rollout"}),
	}
}

// lead reconciles until leadCtx ends with the term. Each term starts informers and queues of
// its own and stops them at its end, so that only the leader caches the instances; it returns
// once its workers are done, so that two terms never work at once in one replica.
func (c *Controller) lead(leadCtx context.Context) {
	klog.Infof("templateinstance controller: leading")
	factory := c.cfg.Informers()
	defer factory.Shutdown()
	t, err := c.watch(factory)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	var workers sync.WaitGroup
	// At the term's end: shutting the queues down lets the workers blocked in Get return.
	defer func() {
		t.queue.ShutDown()
		t.rolloutQueue.ShutDown()
		workers.Wait()
	}()
	factory.Start(leadCtx.Done())
	if !cache.WaitForCacheSync(leadCtx.Done(), t.synced...) {
		return
	}
	for i := 0; i < c.cfg.Workers; i++ {
		workers.Go(func() { wait.UntilWithContext(leadCtx, func(ctx context.Context) { c.work(ctx, t) }, time.Second) })
	}
	workers.Go(func() {
		wait.UntilWithContext(leadCtx, func(ctx context.Context) { c.workRollouts(ctx, t) }, time.Second)
	})
	<-leadCtx.Done()
}

// watch sets up the informers of one term: the instances, cached and indexed by the Template
// they reference, and the Templates, whose changes queue their instances (an upgrade). It
// returns the term, whose synced tells that their caches have synced.
func (c *Controller) watch(factory informers.SharedInformerFactory) (*term, error) {
	instanceInformer := factory.Templates().V1alpha1().TemplateInstances()
	templateLister := factory.Templates().V1alpha1().Templates()
	templateInformer := templateLister.Informer()
	if err := instanceInformer.Informer().AddIndexers(cache.Indexers{byTemplate: indexByTemplate}); err != nil {
		return nil, err
	}
	t := newTerm()
	t.caches = caches{instances: instanceInformer.Lister(), byTemplate: instanceInformer.Informer().GetIndexer(), templates: templateLister.Lister()}
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			t.queue.Add(key)
		}
		// An instance's progress is its Template's rollout's too.
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if ti, ok := obj.(*templatesv1.TemplateInstance); ok && ti.Spec.TemplateRef != nil {
			t.enqueueRollout(ti.Namespace, ti.Spec.TemplateRef.Name)
		}
	}
	if _, err := instanceInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue}); err != nil {
		return nil, err
	}
	if _, err := templateInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: t.templateChanged, UpdateFunc: t.templateUpdated, DeleteFunc: t.templateChanged}); err != nil {
		return nil, err
	}
	t.synced = []cache.InformerSynced{instanceInformer.Informer().HasSynced, templateInformer.HasSynced}
	return t, nil
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
func (t *term) templateChanged(obj interface{}) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if tpl, ok := obj.(*templatesv1.Template); ok {
		t.enqueueInstancesOf(tpl.Namespace, tpl.Name)
		t.enqueueRollout(tpl.Namespace, tpl.Name)
	}
}

// templateUpdated queues the Template's rollout, and its instances when the change may move
// some of them (movesInstances).
func (t *term) templateUpdated(oldObj, obj interface{}) {
	tpl, ok := obj.(*templatesv1.Template)
	if !ok {
		return
	}
	old, _ := oldObj.(*templatesv1.Template)
	if movesInstances(old, tpl) {
		t.enqueueInstancesOf(tpl.Namespace, tpl.Name)
	}
	t.enqueueRollout(tpl.Namespace, tpl.Name)
}

// enqueueInstancesOf queues every instance of a Template: a change to it is an upgrade.
func (t *term) enqueueInstancesOf(namespace, name string) {
	objs, err := t.byTemplate.ByIndex(byTemplate, namespace+"/"+name)
	if err != nil {
		return
	}
	for _, obj := range objs {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			t.queue.Add(key)
		}
	}
}

func (c *Controller) work(ctx context.Context, t *term) {
	for c.next(ctx, t) {
	}
}

// next reconciles one instance of term t. An error is retried with the queue's exponential
// backoff; a result asking for a later look is queued after its delay. A key taken once the
// term has ended is left: the term's queue ends with it, and the next term queues every key.
func (c *Controller) next(ctx context.Context, t *term) bool {
	key, quit := t.queue.Get()
	if quit {
		return false
	}
	defer t.queue.Done(key)
	if ctx.Err() != nil {
		return false
	}
	requeueAfter, err := c.sync(ctx, t, key)
	switch {
	case apierrors.IsConflict(err):
		// The informer's copy was older than the stored instance: look again once it caught
		// up, without growing the backoff that failures get.
		t.queue.AddAfter(key, conflictRetry)
	case err != nil:
		if err != errRetry {
			klog.Infof("templateinstance %s: %v (retrying with backoff)", key, err)
		}
		t.queue.AddRateLimited(key)
	case requeueAfter > 0:
		t.queue.Forget(key)
		t.queue.AddAfter(key, requeueAfter)
	default:
		t.queue.Forget(key)
	}
	return true
}

// sync reads the instance from the term's cache and reconciles it.
func (c *Controller) sync(ctx context.Context, t *term, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	cached, err := t.instances.TemplateInstances(namespace).Get(name)
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
