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
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"stencil.dev/stencil/pkg/apis/templates"
	"stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	"stencil.dev/stencil/pkg/process"
	"stencil.dev/stencil/pkg/registry/templates/processedtemplate"
	"stencil.dev/stencil/pkg/registry/templates/renderrest"
	"stencil.dev/stencil/pkg/render"
)

// The objects of a processing answer are slices of the engine's List, given back once the
// answer is written in time (renderrest.AnswerRelease). These tests attack that: a List given
// back while someone still reads it shows as another request's bytes in it, or as a race.

// answerHoldingStorage is processing whose answer, for a Template whose name says
// "late-processing", is made in time but returned only once the request's time is over (the
// handler then answers 504), and for one that says "late-writing", is returned at once but
// written after the request's time (slowWriter). Either way it keeps reading the answer's
// objects in a goroutine of its own after the request, as work that outlives its request
// would: what it read comes back on held.
type answerHoldingStorage struct {
	processingStorage
	held chan error
}

func (s *answerHoldingStorage) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	name := obj.(*templates.Template).Name
	if !strings.Contains(name, "late-") {
		return s.processingStorage.Create(ctx, obj, validate, options)
	}
	// Processing of the request's context, its AnswerRelease included, that its deadline
	// does not stop.
	result, err := s.processingStorage.Create(context.WithoutCancel(ctx), obj, validate, options)
	if err != nil {
		return nil, err
	}
	list := result.(*v1alpha1.List)
	raws := make([][]byte, len(list.Items))
	was := make([][]byte, len(list.Items))
	for i := range list.Items {
		raws[i], was[i] = list.Items[i].Raw, bytes.Clone(list.Items[i].Raw)
	}
	go func() {
		<-ctx.Done()
		time.Sleep(300 * time.Millisecond)
		for i := range raws {
			if !bytes.Equal(raws[i], was[i]) {
				s.held <- fmt.Errorf("%s: an object of its answer changed after the request: %.100q, was %.100q", name, raws[i], was[i])
				return
			}
		}
		s.held <- nil
	}()
	if strings.Contains(name, "late-processing") {
		<-ctx.Done()
	}
	return list, nil
}

// slowWriter writes an answer only once the request's time is over.
type slowWriter struct {
	*httptest.ResponseRecorder
	ctx context.Context
}

func (w slowWriter) Write(b []byte) (int, error) {
	<-w.ctx.Done()
	return w.ResponseRecorder.Write(b)
}

// TestAnswerOfALateRequestIsKept cuts requests at their deadline, once while processing (the
// 504 the processing handler answers then) and once while the answer is written: neither
// gives its answer's List back, so that work that still reads the objects after the request
// never reads another request's bytes, though requests whose Lists are of the same size class
// follow at once and give theirs back.
func TestAnswerOfALateRequestIsKept(t *testing.T) {
	storage := &answerHoldingStorage{processingStorage: processedtemplate.NewREST(renderrest.NewAdapter(renderrest.Sources{})), held: make(chan error, 8)}
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, storage)
	serve := func(w http.ResponseWriter, c processingCase, timeout time.Duration, slow bool) {
		req := c.request(v1alpha1.SchemeGroupVersion)
		ctx, cancel := context.WithTimeout(req.Context(), timeout)
		defer cancel()
		if slow {
			w = slowWriter{ResponseRecorder: w.(*httptest.ResponseRecorder), ctx: ctx}
		}
		pair.fast.ServeHTTP(w, req.WithContext(ctx))
	}
	// A few times: the pool may drop what it is given (it does at random under the race
	// detector), which would hide a List given back too early.
	const rounds = 4
	for round := range rounds {
		late := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(fmt.Sprintf("late-processing-%d", round), 6000, false)}
		w := httptest.NewRecorder()
		serve(w, late, 100*time.Millisecond, false)
		if w.Code != http.StatusGatewayTimeout {
			t.Fatalf("a request cut by its deadline: %d %.300s, want 504", w.Code, w.Body)
		}
		slow := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(fmt.Sprintf("late-writing-%d", round), 6000, false)}
		serve(httptest.NewRecorder(), slow, 100*time.Millisecond, true)
		for i := range 20 {
			id := fmt.Sprintf("z%d-%d", round, i)
			c := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(id, 6000, false)}
			w := httptest.NewRecorder()
			serve(w, c, time.Minute, false)
			if w.Code != http.StatusCreated || !strings.Contains(w.Body.String(), `"id":"`+id+`"`) {
				t.Fatalf("%d %.300s", w.Code, w.Body)
			}
		}
	}
	for range 2 * rounds {
		if err := <-storage.held; err != nil {
			t.Error(err)
		}
	}
}

// TestOtherRendersKeepTheirBytes renders, beside processing requests that give their
// answers' Lists back, what every other caller of the Adapter renders (the TemplateInstance
// controller's RenderObjects, an answer rendered without an AnswerRelease as the processed
// endpoint's, OpenShift's RenderTemplate), of the same size class: their objects are theirs
// and never change.
func TestOtherRendersKeepTheirBytes(t *testing.T) {
	adapter := renderrest.NewAdapter(renderrest.Sources{})
	pair := newProcessingPair(t, v1alpha1.SchemeGroupVersion, processedtemplate.NewREST(adapter))
	input := func(id string) render.Input {
		tmpl, _, err := process.DecodeTemplate([]byte(finishingTemplate(id, 6000, false)))
		if err != nil {
			t.Fatal(err)
		}
		return render.Input{Template: tmpl}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for client := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("p%d-%d", client, i)
				c := processingCase{contentType: "application/json", accept: "application/json", body: finishingTemplate(id, 6000, false)}
				w := httptest.NewRecorder()
				pair.fast.ServeHTTP(w, c.request(v1alpha1.SchemeGroupVersion))
				if w.Code != http.StatusCreated || !strings.Contains(w.Body.String(), `"id":"`+id+`"`) {
					t.Errorf("%d %.300s", w.Code, w.Body)
					return
				}
			}
		})
	}
	type kept struct {
		what     string
		raw, was []byte
	}
	var keep []kept
	ctx := context.Background()
	for i := range 30 {
		objects, err := adapter.RenderObjects(ctx, input(fmt.Sprintf("o%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, kept{"RenderObjects", objects.Objects[0], bytes.Clone(objects.Objects[0])})
		list, err := adapter.Render(ctx, input(fmt.Sprintf("r%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, kept{"Render without an AnswerRelease", list.Items[0].Raw, bytes.Clone(list.Items[0].Raw)})
		renderrest.ReleaseAnswer(list) // its room only: its bytes are its own
		tmpl, err := adapter.RenderTemplate(ctx, input(fmt.Sprintf("t%d", i)), templates.Kind("Template"))
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, kept{"RenderTemplate", tmpl.Objects[0].Raw, bytes.Clone(tmpl.Objects[0].Raw)})
		time.Sleep(2 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for _, k := range keep {
		if !bytes.Equal(k.raw, k.was) {
			t.Errorf("%s changed: %.100q, was %.100q", k.what, k.raw, k.was)
		}
	}
}
