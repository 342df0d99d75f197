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

package servingcert

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// fieldManager names the server in the managed fields of what it writes.
	fieldManager = "stencil-apiserver"
	// resync makes every replica look at the Secret again now and then, even without events:
	// that is how a certificate gets renewed when nothing else happens.
	resync = 30 * time.Minute
	// startupTimeout is how long a starting server waits for kube-apiserver before giving up
	// and letting its restart policy try again.
	startupTimeout = 2 * time.Minute
	// queueKey is the queue's only item: there is one Secret and one APIService to keep.
	queueKey = "serving-cert"
)

var apiServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// Options say which Secret holds the certificate and which APIService trusts it.
type Options struct {
	// SecretNamespace and SecretName name the kubernetes.io/tls Secret shared by the replicas.
	SecretNamespace, SecretName string
	// DNSNames are the names of the serving certificate; the first is
	// <service>.<namespace>.svc, the name the aggregator checks.
	DNSNames []string
	// APIServiceNames are the APIServices whose spec.caBundle is kept equal to the CA bundle
	// (ours, and template.openshift.io's when the server serves it); none leaves every
	// APIService alone.
	APIServiceNames []string
}

// Observer learns what the controller does, for metrics; nil is allowed.
type Observer interface {
	// CertificateExpires reports the end of the certificate being served.
	CertificateExpires(notAfter time.Time)
}

// Controller keeps the Secret's certificate valid and served, and the APIService's caBundle
// current. Every replica runs one; they agree because they read and write the same Secret.
type Controller struct {
	opts        Options
	secrets     corev1client.SecretsGetter
	apiServices dynamic.NamespaceableResourceInterface
	provider    *provider
	observer    Observer
	queue       workqueue.TypedRateLimitingInterface[string]

	secretInformer      cache.SharedIndexInformer
	apiServiceInformers []cache.SharedIndexInformer
}

// New loads the certificate from the Secret, creating the Secret when needed, so that the
// server has its certificate before it listens. It retries while kube-apiserver cannot be
// reached, for at most two minutes.
func New(ctx context.Context, config *rest.Config, opts Options, observer Observer) (*Controller, error) {
	if len(opts.DNSNames) == 0 {
		return nil, fmt.Errorf("the serving certificate needs at least one DNS name")
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	c := &Controller{
		opts:        opts,
		secrets:     client.CoreV1(),
		apiServices: dyn.Resource(apiServicesGVR),
		provider:    &provider{},
		observer:    observer,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "stencil_serving_cert"}),
	}
	var bundle *Bundle
	err = wait.PollUntilContextTimeout(ctx, 2*time.Second, startupTimeout, true, func(ctx context.Context) (bool, error) {
		var err error
		if bundle, err = ensureSecret(ctx, c.secrets, opts, time.Now()); err != nil {
			klog.ErrorS(err, "Loading the serving certificate; retrying")
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading the serving certificate from Secret %s/%s: %w", opts.SecretNamespace, opts.SecretName, err)
	}
	c.serve(bundle)

	byName := func(name string) func(*metav1.ListOptions) {
		return func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}
	}
	// Watching by name keeps within RBAC rules that grant only these names.
	c.secretInformer = coreinformers.NewFilteredSecretInformer(client, opts.SecretNamespace, resync, cache.Indexers{}, byName(opts.SecretName))
	for _, name := range opts.APIServiceNames {
		c.apiServiceInformers = append(c.apiServiceInformers,
			dynamicinformer.NewFilteredDynamicInformer(dyn, apiServicesGVR, "", resync, cache.Indexers{}, byName(name)).Informer())
	}
	return c, nil
}

// CertKeyProvider is the certificate the generic server serves; it follows the Secret.
func (c *Controller) CertKeyProvider() dynamiccertificates.CertKeyContentProvider { return c.provider }

// Run watches the Secret and the APIService and reconciles on every change, until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	enqueue := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.queue.Add(queueKey) },
		UpdateFunc: func(any, any) { c.queue.Add(queueKey) },
		DeleteFunc: func(any) { c.queue.Add(queueKey) },
	}
	synced := []cache.InformerSynced{}
	for _, inf := range append([]cache.SharedIndexInformer{c.secretInformer}, c.apiServiceInformers...) {
		if inf == nil {
			continue
		}
		if _, err := inf.AddEventHandler(enqueue); err != nil {
			utilruntime.HandleError(err)
			return
		}
		go inf.RunWithContext(ctx)
		synced = append(synced, inf.HasSynced)
	}
	if !cache.WaitForNamedCacheSyncWithContext(ctx, synced...) {
		return
	}
	c.queue.Add(queueKey)
	go wait.UntilWithContext(ctx, c.work, time.Second)
	<-ctx.Done()
}

func (c *Controller) work(ctx context.Context) {
	for {
		key, quit := c.queue.Get()
		if quit {
			return
		}
		err := c.reconcile(ctx)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Keeping the serving certificate")
			c.queue.AddRateLimited(key)
		} else {
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// reconcile renews the Secret's certificate when due, serves what the Secret holds and writes
// its CAs into the APIService.
func (c *Controller) reconcile(ctx context.Context) error {
	bundle, err := ensureSecret(ctx, c.secrets, c.opts, time.Now())
	if err != nil {
		return err
	}
	c.serve(bundle)
	// Come back when renewal is due even if no event and no resync arrives before.
	c.queue.AddAfter(queueKey, time.Until(bundle.NotAfter.Add(-RenewBefore)))
	for i, name := range c.opts.APIServiceNames {
		if err := c.syncCABundle(ctx, c.apiServiceInformers[i], name, bundle.CABundle); err != nil {
			return err
		}
	}
	return nil
}

func (c *Controller) serve(b *Bundle) {
	if c.provider.set(b) {
		klog.InfoS("Serving the certificate of the Secret", "secret", klog.KRef(c.opts.SecretNamespace, c.opts.SecretName), "notAfter", b.NotAfter)
	}
	if c.observer != nil {
		c.observer.CertificateExpires(b.NotAfter)
	}
}

// syncCABundle sets the APIService's caBundle to caBundle when it differs. A missing APIService
// is not an error: its creation is an event that brings the controller back.
func (c *Controller) syncCABundle(ctx context.Context, informer cache.SharedIndexInformer, name string, caBundle []byte) error {
	obj, exists, err := informer.GetStore().GetByKey(name)
	if err != nil || !exists {
		klog.V(2).InfoS("No APIService to keep yet", "apiservice", name)
		return err
	}
	current, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", "caBundle")
	want := base64.StdEncoding.EncodeToString(caBundle)
	if current == want {
		return nil
	}
	patch := fmt.Appendf(nil, `{"spec":{"caBundle":%q}}`, want)
	if _, err := c.apiServices.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return fmt.Errorf("writing the caBundle of APIService %s: %w", name, err)
	}
	klog.InfoS("Wrote the caBundle of the APIService", "apiservice", name)
	return nil
}
