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
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/controller/instance"
	informers "stencil.dev/stencil/pkg/generated/informers/externalversions"
)

func TestNewControllerNeedsItsParts(t *testing.T) {
	if _, err := NewController(Config{}); err == nil {
		t.Fatal("a controller without parts was built")
	}
}

// TestNext: the queue retries a failure with backoff, a conflict soon without backoff, and
// forgets what succeeded.
func TestNext(t *testing.T) {
	for _, tc := range []struct {
		name     string
		objects  []runtime.Object
		requeues int
	}{
		{"a failure is retried with backoff", []runtime.Object{newInstance("shop")}, 1},
		{"a pass that succeeded is forgotten", []runtime.Object{newInstance("shop"), newTemplate("app", configMap)}, 0},
		{"a deleted instance is forgotten", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := (&fixture{t: t, objects: tc.objects}).build()
			indexer := f.factory.Templates().V1alpha1().TemplateInstances().Informer().GetIndexer()
			for _, obj := range tc.objects {
				if _, ok := obj.(*templatesv1.TemplateInstance); ok {
					_ = indexer.Add(obj)
				}
			}
			f.term.queue.Add("demo/shop")
			if !f.c.next(context.Background(), f.term) {
				t.Fatal("next stopped")
			}
			if n := f.term.queue.NumRequeues("demo/shop"); n != tc.requeues {
				t.Errorf("requeues %d, want %d", n, tc.requeues)
			}
		})
	}
}

// TestTemplateChangeQueuesItsInstances: a change of a Template is an upgrade of every instance
// of it, and of no other.
func TestTemplateChangeQueuesItsInstances(t *testing.T) {
	f := (&fixture{t: t}).build()
	indexer := f.factory.Templates().V1alpha1().TemplateInstances().Informer().GetIndexer()
	inline := newInstance("inline", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef = nil })
	other := newInstance("other", func(ti *templatesv1.TemplateInstance) { ti.Spec.TemplateRef.Name = "other" })
	for _, ti := range []*templatesv1.TemplateInstance{newInstance("a"), newInstance("b"), inline, other} {
		_ = indexer.Add(ti)
	}
	f.term.templateChanged(cache.DeletedFinalStateUnknown{Key: "demo/app", Obj: newTemplate("app")})
	if f.term.queue.Len() != 2 {
		t.Fatalf("queued %d instances, want a and b", f.term.queue.Len())
	}
	first, _ := f.term.queue.Get()
	second, _ := f.term.queue.Get()
	if keys := []string{first, second}; !slices.Contains(keys, "demo/a") || !slices.Contains(keys, "demo/b") {
		t.Errorf("queued %v, want demo/a and demo/b", keys)
	}
}

// TestRunLeadsWithItsOwnInformers: the informers come from the factory when the controller
// starts leading, not when it is built, and a term reconciles what they report.
func TestRunLeadsWithItsOwnInformers(t *testing.T) {
	for _, elected := range []bool{false, true} {
		name := "without election"
		if elected {
			name = "elected through a Lease"
		}
		t.Run(name, func(t *testing.T) {
			f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap), newInstance("shop")}}).build()
			var terms atomic.Int32
			cfg := f.c.cfg
			cfg.Informers = func() informers.SharedInformerFactory {
				terms.Add(1)
				return informers.NewSharedInformerFactory(f.instances, 0)
			}
			lease := kubefake.NewClientset()
			if elected {
				cfg.Election = &Election{Client: lease, Namespace: "stencil", Name: DefaultLeaseName,
					LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline, RetryPeriod: DefaultRetryPeriod}
			}
			c, err := NewController(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if terms.Load() != 0 {
				t.Fatal("informers were made before leading")
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { c.Run(ctx); close(done) }()
			defer func() { cancel(); <-done }()
			err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
				ti := f.instance("shop")
				return meta.IsStatusConditionTrue(ti.Status.Conditions, templatesv1.TemplateInstanceReady), nil
			})
			if err != nil {
				t.Fatalf("the instance did not become Ready: %v", err)
			}
			if terms.Load() != 1 {
				t.Errorf("%d terms", terms.Load())
			}
			if elected {
				l, err := lease.CoordinationV1().Leases("stencil").Get(ctx, DefaultLeaseName, metav1.GetOptions{})
				if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
					t.Errorf("Lease %+v, %v", l, err)
				}
			}
		})
	}
}

// TestStorageTemplates reads through the storage's getter with the namespace in the context.
func TestStorageTemplates(t *testing.T) {
	f := (&fixture{t: t, objects: []runtime.Object{newTemplate("app", configMap)}}).build()
	reader := instance.StorageTemplates{Getter: f.Templates}
	got, err := reader.Template(context.Background(), "demo", "app")
	if err != nil || got.Name != "app" || got.Author.Username != "alice" || len(got.Objects) != 1 {
		t.Fatalf("%+v, %v", got, err)
	}
	if _, err := reader.Template(context.Background(), "elsewhere", "app"); err == nil {
		t.Error("a Template of another namespace was read")
	}
}
