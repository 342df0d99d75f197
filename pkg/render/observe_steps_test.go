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

package render

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/transform"
)

// TestObserveStepsHearsEveryTransformer: a Renderer's step observer (ObserveSteps, set once for
// a server's every request) hears each transformer every request runs, as an observer carried
// by each request's context (transform.WithStepObserver) does, from requests at once; a
// request whose context carries an observer of its own is heard by that one alone.
func TestObserveStepsHearsEveryTransformer(t *testing.T) {
	label := `{"apiVersion":"builtin","kind":"LabelTransformer","metadata":{"name":"l"},"labels":{"x":"y"}}`
	annotate := `{"apiVersion":"builtin","kind":"AnnotationsTransformer","metadata":{"name":"a"},"annotations":{"a":"b"}}`
	var mu sync.Mutex
	byRenderer, byRequest := map[string]int{}, map[string]int{}
	count := func(runs map[string]int) transform.StepObserver {
		return func(kind string, _ time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			runs[kind]++
		}
	}
	r := NewRenderer(Options{})
	r.ObserveSteps(count(byRenderer))
	in := func() Input {
		return Input{Template: bigOutput(1, label, annotate), Request: process.Request{Parameters: map[string]string{"V": "v"}}}
	}
	const requests = 16
	var wg sync.WaitGroup
	for range requests {
		wg.Go(func() {
			if _, errs, err := r.Render(context.Background(), in()); err != nil || len(errs) > 0 {
				t.Error(err, errs)
			}
		})
	}
	wg.Wait()
	want := map[string]int{"LabelTransformer": requests, "AnnotationsTransformer": requests}
	if !reflect.DeepEqual(byRenderer, want) {
		t.Errorf("the renderer's observer heard %v, want %v", byRenderer, want)
	}
	if _, errs, err := r.Render(transform.WithStepObserver(context.Background(), count(byRequest)), in()); err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if !reflect.DeepEqual(byRenderer, want) || !reflect.DeepEqual(byRequest, map[string]int{"LabelTransformer": 1, "AnnotationsTransformer": 1}) {
		t.Errorf("with an observer of the request's own: the renderer's heard %v, the request's %v", byRenderer, byRequest)
	}
}
