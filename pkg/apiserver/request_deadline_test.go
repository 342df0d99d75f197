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

package apiserver

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
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
)

type testKey struct{}

// deadlineSteps are what a request's steps can do with its context, in the order a case
// does them; each returns what it saw, for the two contexts to be compared.
var deadlineSteps = map[string]func(ctx context.Context, cancel, cancelParent context.CancelFunc) string{
	"err":   func(ctx context.Context, _, _ context.CancelFunc) string { return errString(ctx.Err()) },
	"cause": func(ctx context.Context, _, _ context.CancelFunc) string { return errString(context.Cause(ctx)) },
	"done": func(ctx context.Context, _, _ context.CancelFunc) string {
		select {
		case <-ctx.Done():
			return "done"
		default:
			return "open"
		}
	},
	"wait": func(ctx context.Context, _, _ context.CancelFunc) string {
		select {
		case <-ctx.Done():
			return "done " + errString(ctx.Err())
		case <-time.After(10 * time.Second):
			return "never done"
		}
	},
	"child": func(ctx context.Context, _, _ context.CancelFunc) string {
		child, stop := context.WithCancel(ctx)
		defer stop()
		select {
		case <-child.Done():
			return "child done " + errString(child.Err()) + " " + errString(context.Cause(child))
		case <-time.After(10 * time.Second):
			return "child never done"
		}
	},
	"afterfunc": func(ctx context.Context, _, _ context.CancelFunc) string {
		ran := make(chan struct{})
		context.AfterFunc(ctx, func() { close(ran) })
		select {
		case <-ran:
			return "ran"
		case <-time.After(10 * time.Second):
			return "never ran"
		}
	},
	"value": func(ctx context.Context, _, _ context.CancelFunc) string {
		v, _ := ctx.Value(testKey{}).(string)
		return v
	},
	"sleep": func(context.Context, context.CancelFunc, context.CancelFunc) string {
		time.Sleep(60 * time.Millisecond)
		return ""
	},
	"cancel": func(_ context.Context, cancel, _ context.CancelFunc) string { cancel(); return "" },
	"cancel parent": func(_ context.Context, _, cancelParent context.CancelFunc) string {
		cancelParent()
		return ""
	},
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// TestDeadlineOnDemandAnswersAsWithDeadline runs the same steps on context.WithDeadline and
// on withDeadlineOnDemand, with a deadline 30 ms away, and compares what each step saw: the
// error and the cause before and after the deadline, whether or not anything waited for it,
// after cancel, after the parent's cancel, a child's and an AfterFunc's, and values.
func TestDeadlineOnDemandAnswersAsWithDeadline(t *testing.T) {
	for _, steps := range [][]string{
		{"err", "cause", "value", "sleep", "err", "cause", "done", "wait"},
		{"done", "err", "wait", "err", "cause"},
		{"sleep", "done", "err", "cause"},
		{"sleep", "cancel", "err", "cause", "done"},
		{"cancel", "err", "cause", "done", "wait", "child"},
		{"done", "cancel", "err", "cause", "done"},
		{"err", "cancel parent", "err", "cause", "done", "sleep", "err"},
		{"cancel parent", "done", "err", "cause"},
		{"child"},
		{"afterfunc", "err"},
		{"value", "done", "value", "cause", "sleep", "cause", "cancel", "err"},
		{"sleep", "err", "cancel", "err", "cause", "wait"},
	} {
		var got [2][]string
		for i, onDemand := range []bool{false, true} {
			parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), testKey{}, "v"))
			deadline := time.Now().Add(30 * time.Millisecond)
			ctx, cancel := context.WithDeadline(parent, deadline)
			if onDemand {
				cancel()
				ctx, cancel = withDeadlineOnDemand(parent, deadline)
			}
			if d, ok := ctx.Deadline(); !ok || !d.Equal(deadline) {
				t.Fatalf("deadline %v %v, want %v", d, ok, deadline)
			}
			for _, step := range steps {
				got[i] = append(got[i], step+": "+deadlineSteps[step](ctx, cancel, cancelParent))
			}
			cancel()
			cancelParent()
		}
		for j := range got[0] {
			if got[0][j] != got[1][j] {
				t.Errorf("%v: step %d, context.WithDeadline saw %q, withDeadlineOnDemand %q", steps, j, got[0][j], got[1][j])
			}
		}
	}
}

// TestDeadlineOnDemandTakesTheEarlierDeadline: a parent that must end sooner bounds it, as it
// bounds context.WithDeadline, even if nothing waits for it.
func TestDeadlineOnDemandTakesTheEarlierDeadline(t *testing.T) {
	parent, cancelParent := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelParent()
	want, _ := parent.Deadline()
	ctx, cancel := withDeadlineOnDemand(parent, time.Now().Add(time.Hour))
	defer cancel()
	if d, _ := ctx.Deadline(); !d.Equal(want) {
		t.Fatalf("deadline %v, want the parent's %v", d, want)
	}
	time.Sleep(40 * time.Millisecond)
	if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v past the parent's deadline", err)
	}
}

// TestDeadlineOnDemandConcurrently asks one context from many goroutines at once (run under
// the race detector by make test): waits, errors, values and cancel.
func TestDeadlineOnDemandConcurrently(t *testing.T) {
	for range 20 {
		ctx, cancel := withDeadlineOnDemand(context.WithValue(context.Background(), testKey{}, "v"), time.Now().Add(5*time.Millisecond))
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				switch g % 4 {
				case 0:
					<-ctx.Done()
				case 1:
					for ctx.Err() == nil {
						time.Sleep(time.Millisecond)
					}
				case 2:
					if ctx.Value(testKey{}) != "v" {
						t.Error("value lost")
					}
					<-ctx.Done()
				case 3:
					child, stop := context.WithCancel(ctx)
					<-child.Done()
					stop()
				}
			})
		}
		wg.Wait()
		err := ctx.Err()
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != err || context.Cause(ctx) != err {
			t.Fatalf("err %v, after cancel %v, cause %v", err, ctx.Err(), context.Cause(ctx))
		}
	}
}

// deadlineStorage is processing that records the deadline of the context it is given and, when
// wait is set, waits for that context to end (as processing's waits for memory or a plugin
// do) and returns its error.
type deadlineStorage struct {
	processingStorage
	wait      bool
	deadlines chan time.Time
}

func (s *deadlineStorage) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	d, _ := ctx.Deadline()
	s.deadlines <- d
	if s.wait {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("the request's context never ended")
		}
	}
	return s.processingStorage.Create(ctx, obj, validate, options)
}

// TestProcessingHandlerBoundsProcessingTime: processing gets at most the create handler's 34
// seconds, or the request's own deadline if sooner, and processing that waits past it is cut
// and answered as the create handler answers it (504, in the finisher's words). A client that
// asked for an hour, or for nothing, cannot make processing outlast that bound.
func TestProcessingHandlerBoundsProcessingTime(t *testing.T) {
	for _, c := range []struct {
		name   string
		within time.Duration // the request's own deadline; 0 for none
		wait   bool
		status int
	}{
		{"no deadline of its own", 0, false, http.StatusCreated},
		{"an hour", time.Hour, false, http.StatusCreated},
		{"processing waits past 200 ms", 200 * time.Millisecond, true, http.StatusGatewayTimeout},
	} {
		t.Run(c.name, func(t *testing.T) {
			storage := &deadlineStorage{processingStorage: processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{})),
				wait: c.wait, deadlines: make(chan time.Time, 2)}
			pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, storage)
			var answers [2]*httptest.ResponseRecorder
			for i, handler := range []http.Handler{pair.fast, pair.generic} {
				req := processingCase{contentType: "application/json", accept: "application/json", body: stencilTemplate}.request(v1alpha1.SchemeGroupVersion)
				start := time.Now()
				if c.within != 0 {
					ctx, cancel := context.WithTimeout(req.Context(), c.within)
					defer cancel()
					req = req.WithContext(ctx)
				}
				answers[i] = httptest.NewRecorder()
				handler.ServeHTTP(answers[i], req)
				bound := requestTimeoutUpperBound
				if c.within != 0 && c.within < bound {
					bound = c.within
				}
				if d := <-storage.deadlines; d.Before(start.Add(bound)) || d.After(time.Now().Add(bound)) {
					t.Errorf("handler %d: processing's deadline %v after the request began, want %v", i, d.Sub(start), bound)
				}
			}
			if pair.handedOn.Load() != 0 {
				t.Fatalf("the request was handed to the create handler")
			}
			fast, generic := answers[0], answers[1]
			if fast.Code != c.status || fast.Code != generic.Code || fast.Body.String() != generic.Body.String() {
				t.Errorf("the processing handler answered %d:\n%.300s\nthe create handler %d:\n%.300s", fast.Code, fast.Body, generic.Code, generic.Body)
			}
		})
	}
}
