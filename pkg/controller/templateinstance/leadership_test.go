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
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
)

// endingFactory tells when a term's informers are shut down: the term has ended.
type endingFactory struct {
	informers.SharedInformerFactory
	ended chan<- struct{}
}

func (f endingFactory) Shutdown() {
	f.SharedInformerFactory.Shutdown()
	f.ended <- struct{}{}
}

// TestLeadershipRegainedQueuesEveryKey: a replica that loses its Lease and wins it again
// reconciles every instance in its new term, those changed while it did not lead included.
// Before, the first term's workers stayed blocked on the one queue of the controller and, in
// the new term, took keys and dropped them (their term had ended): those instances waited for
// the next resync (10 minutes; never, with this test's informers, which have none).
func TestLeadershipRegainedQueuesEveryKey(t *testing.T) {
	// More workers than keys: every worker of the first term is still waiting on its queue when
	// the second term queues its keys.
	const workers = 8
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop")}}).build()
	var terms atomic.Int32
	ended := make(chan struct{}, 4)
	cfg := f.c.cfg
	cfg.Workers = workers
	cfg.Informers = func() informers.SharedInformerFactory {
		terms.Add(1)
		return endingFactory{informers.NewSharedInformerFactory(f.instances, 0), ended}
	}
	lease := kubefake.NewClientset()
	cfg.Election = &Election{Client: lease, Namespace: "stencil", Name: DefaultLeaseName,
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond}
	c, err := NewController(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	// reconciled says a pass of each instance wrote its status (each of those made later fails:
	// they all render the same ConfigMap as shop; a pass is what counts here).
	reconciled := func(names ...string) error {
		return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
			for _, name := range names {
				if meta.FindStatusCondition(f.instance(name).Status.Conditions, templatesv1.TemplateInstanceReady) == nil {
					return false, nil
				}
			}
			return true, nil
		})
	}
	if err := reconciled("shop"); err != nil {
		t.Fatalf("the first term did not reconcile: %v", err)
	}

	// Another replica takes the Lease: this one's term ends at its next renewal, which the API
	// server refuses (a conflict: the Lease changed since this replica read it; the fake
	// clientset checks no resourceVersion, so a reactor does) until the Lease expires.
	l, err := lease.CoordinationV1().Leases("stencil").Get(ctx, DefaultLeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stolenUntil := time.Now().Add(2 * time.Second)
	lease.PrependReactor("update", "leases", func(action clienttesting.Action) (bool, runtime.Object, error) {
		held := action.(clienttesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if *held.Spec.HolderIdentity != "another-replica" && time.Now().Before(stolenUntil) {
			return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), held.Name, errors.New("the Lease was taken"))
		}
		return false, nil, nil
	})
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = ptr.To("another-replica"), ptr.To[int32](2)
	l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	if _, err := lease.CoordinationV1().Leases("stencil").Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the term did not end when the Lease was taken")
	}
	// While nobody here leads, instances are created: the next term must queue each of them.
	var names []string
	for i := range 3 {
		ti := newInstance(fmt.Sprintf("late-%d", i))
		if err := f.instances.Tracker().Add(ti); err != nil {
			t.Fatal(err)
		}
		names = append(names, ti.Name)
	}
	// The other replica never renews: this one leads again once the Lease expires.
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		return terms.Load() == 2, nil
	}); err != nil {
		t.Fatalf("no second term: %v", err)
	}
	if err := reconciled(names...); err != nil {
		for _, name := range names {
			t.Logf("%s: %+v", name, f.instance(name).Status.Conditions)
		}
		t.Fatalf("instances created between the terms were not reconciled in the second: %v", err)
	}
}
