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

package customtransform

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"stencil.dev/stencil/pkg/apis/templates"
)

// fakeStore lists items (with a resource version per change) and counts the lists; watchable
// ones hand out FakeWatchers.
type fakeStore struct {
	mu       sync.Mutex
	items    []templates.CustomTransform
	version  int
	lists    int
	watchers []*watch.FakeWatcher
}

func (s *fakeStore) NewList() runtime.Object { return &templates.CustomTransformList{} }

func (s *fakeStore) List(context.Context, *metainternalversion.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	list := &templates.CustomTransformList{Items: append([]templates.CustomTransform(nil), s.items...)}
	list.ResourceVersion = strconv.Itoa(s.version + 1)
	return list, nil
}

func (s *fakeStore) ConvertToTable(context.Context, runtime.Object, runtime.Object) (*metav1.Table, error) {
	return nil, nil
}

func (s *fakeStore) listed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

type watchableStore struct{ *fakeStore }

func (s watchableStore) Watch(context.Context, *metainternalversion.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := watch.NewFakeWithChanSize(1, false)
	s.watchers = append(s.watchers, w)
	return w, nil
}

func (s watchableStore) add(name string) {
	s.mu.Lock()
	s.version++
	ct := templates.CustomTransform{}
	ct.Name = name
	s.items = append(s.items, ct)
	w := s.watchers[len(s.watchers)-1]
	s.mu.Unlock()
	w.Add(&ct)
}

// eventually waits for cond, which a watch's goroutine makes true.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

// TestRulesListOnlyWhenChanged checks that a watchable store is listed once until an event
// or the end of the watch, and that one that cannot be watched is listed every time.
func TestRulesListOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	store := watchableStore{&fakeStore{}}
	r := NewRules(store)
	for range 3 {
		if rules, err := r.Current(ctx); err != nil || len(rules) != 0 {
			t.Fatalf("Current: %v, %v", rules, err)
		}
	}
	if store.listed() != 1 {
		t.Fatalf("listed %d times without a change, want 1", store.listed())
	}
	store.add("a")
	eventually(t, "the rules were not listed again after an event", func() bool {
		rules, err := r.Current(ctx)
		return err == nil && len(rules) == 1
	})
	lists := store.listed()
	if _, err := r.Current(ctx); err != nil || store.listed() != lists {
		t.Fatalf("listed again without a change (%d, then %d): %v", lists, store.listed(), err)
	}
	store.mu.Lock()
	ended := store.watchers[len(store.watchers)-1]
	store.mu.Unlock()
	ended.Stop()
	eventually(t, "the rules were not listed again after the watch ended", func() bool {
		_, err := r.Current(ctx)
		return err == nil && store.listed() > lists
	})
	store.mu.Lock()
	watches := len(store.watchers)
	store.mu.Unlock()
	if watches != 2 {
		t.Fatalf("%d watches, want a second one after the first ended", watches)
	}

	plain := &fakeStore{}
	r = NewRules(plain)
	for range 3 {
		if _, err := r.Current(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if plain.listed() != 3 {
		t.Fatalf("a store that cannot be watched was listed %d times for 3 requests", plain.listed())
	}
}
