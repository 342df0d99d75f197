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

package renderrest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/render"
)

type parentKey struct{}

// carriedContexts are the contexts of this package held in the memory of what they carry
// (HoldUntilWritten's and WithAnswerRelease's), each made over parent, with what it carries.
func carriedContexts(t *testing.T, parent context.Context) map[string]func() (context.Context, any) {
	return map[string]func() (context.Context, any){
		"hold": func() (context.Context, any) {
			var ctx context.Context
			var hold *Hold
			NewProcessingBudget(1<<20, nil).HoldUntilWritten(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				ctx, hold = r.Context(), HoldFrom(r.Context())
			})).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil).WithContext(parent))
			return ctx, hold
		},
		"answer release": func() (context.Context, any) {
			r := &AnswerRelease{}
			return WithAnswerRelease(parent, r), r
		},
	}
}

// TestCarriersAnswerAsWithValue: a context carrying a Hold or an AnswerRelease in their own
// memory answers as context.WithValue's would: what it carries for its key, and the parent's
// deadline, values, cancellation and cause for everything else (a child context and an
// AfterFunc end with the parent), so that no step of a request sees another context than
// before.
func TestCarriersAnswerAsWithValue(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	for name := range carriedContexts(t, nil) {
		t.Run(name, func(t *testing.T) {
			parent, cancel := context.WithDeadlineCause(context.WithValue(context.Background(), parentKey{}, "parent's"), deadline, errors.New("unused"))
			base, cancelBase := context.WithCancelCause(parent)
			defer cancel()
			ctx, carried := carriedContexts(t, base)[name]()
			if carried == nil || ctx == nil {
				t.Fatal("nothing carried")
			}
			switch c := carried.(type) {
			case *Hold:
				if HoldFrom(ctx) != c {
					t.Errorf("HoldFrom gives %p, want %p", HoldFrom(ctx), c)
				}
			case *AnswerRelease:
				if got := claimAnswerRelease(ctx); got != c {
					t.Errorf("claimAnswerRelease gives %p, want %p", got, c)
				}
			}
			if ctx.Value(parentKey{}) != "parent's" {
				t.Errorf("the parent's value reads %v", ctx.Value(parentKey{}))
			}
			if d, ok := ctx.Deadline(); !ok || !d.Equal(deadline) {
				t.Errorf("deadline %v %v, want %v", d, ok, deadline)
			}
			if ctx.Done() != base.Done() || ctx.Err() != nil {
				t.Errorf("Done and Err are not the parent's (%v)", ctx.Err())
			}
			child, cancelChild := context.WithCancel(ctx)
			defer cancelChild()
			after := make(chan struct{})
			context.AfterFunc(ctx, func() { close(after) })
			cause := errors.New("the client went away")
			cancelBase(cause)
			select {
			case <-child.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("a child of the context did not end with its parent")
			}
			select {
			case <-after:
			case <-time.After(5 * time.Second):
				t.Fatal("an AfterFunc of the context did not run when its parent ended")
			}
			if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != cause || context.Cause(child) != cause {
				t.Errorf("error %v, cause %v and the child's %v, want %v", ctx.Err(), context.Cause(ctx), context.Cause(child), cause)
			}
		})
	}
}

// TestAnswerReleaseCarriedTwice: a second WithAnswerRelease of one release (which no caller
// makes) must not change the context the first returned, whose parent's values stay its own.
func TestAnswerReleaseCarriedTwice(t *testing.T) {
	r := &AnswerRelease{}
	first := WithAnswerRelease(context.WithValue(context.Background(), parentKey{}, "first"), r)
	second := WithAnswerRelease(context.WithValue(context.Background(), parentKey{}, "second"), r)
	if first.Value(parentKey{}) != "first" || second.Value(parentKey{}) != "second" {
		t.Errorf("the parents' values read %v and %v", first.Value(parentKey{}), second.Value(parentKey{}))
	}
	if first.Value(answerReleaseKey{}) != r || second.Value(answerReleaseKey{}) != r {
		t.Error("a context does not carry its release")
	}
}

// TestHoldsAreTheirOwn: requests at once each get a Hold of their own, released once the
// handler returns. A Hold shared by two requests in flight (a carrier used again while its
// request runs) shows here, and races under -race.
func TestHoldsAreTheirOwn(t *testing.T) {
	budget := NewProcessingBudget(1<<30, nil)
	var inFlight sync.Map
	handler := budget.HoldUntilWritten(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		h := HoldFrom(r.Context())
		if h == nil {
			t.Error("no Hold")
			return
		}
		if _, taken := inFlight.LoadOrStore(h, true); taken {
			t.Error("two requests in flight hold one Hold")
		}
		if err := h.Charge(r.Context(), 1000); err != nil {
			t.Error(err)
		}
		time.Sleep(time.Millisecond)
		inFlight.Delete(h)
	}))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
			}
		})
	}
	wg.Wait()
	if all, plugins := budget.Held(); all != 0 || plugins != 0 {
		t.Errorf("%d (%d for plugins) still held once every request returned", all, plugins)
	}
}

// stepCounter is an Observer that counts the transformers it hears of.
type stepCounter struct {
	mu    sync.Mutex
	steps map[string]int
}

func (*stepCounter) CacheLookup(string, bool)                              {}
func (*stepCounter) CacheEntries(string, int, int64)                       {}
func (*stepCounter) Processed(string, time.Duration, int, int, int, error) {}
func (c *stepCounter) Transformer(kind string, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.steps[kind]++
}

// TestAdapterObservesTransformers: the Adapter's Observer hears each transformer a request
// runs, now that the renderer carries it (bound once) rather than each request's context.
func TestAdapterObservesTransformers(t *testing.T) {
	observer := &stepCounter{steps: map[string]int{}}
	a := NewAdapter(Sources{Observer: observer})
	tmpl := &templates.Template{ObjectMeta: metav1.ObjectMeta{Name: "t"},
		Transformers: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"l"},"labels":{"x":"y"}}`)}},
		Objects:      []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)}}}
	for range 3 {
		if _, err := a.Render(genericapirequest.WithNamespace(context.Background(), "demo"), render.Input{Template: tmpl}); err != nil {
			t.Fatal(err)
		}
	}
	if observer.steps["LabelTransformer"] != 3 || len(observer.steps) != 1 {
		t.Errorf("the observer heard %v, want three LabelTransformers", observer.steps)
	}
}
