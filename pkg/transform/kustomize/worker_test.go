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

package kustomize

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
)

// slowKustomization is a build of several seconds of one core: patches applications past what
// the Kustomization transformer allows, given to the workers directly.
func slowKustomization(objects, patches int) (kustomization, docs []byte) {
	var b strings.Builder
	for i := range objects {
		fmt.Fprintf(&b, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c%d\"},\"data\":{\"a\":\"b\"}}\n---\n", i)
	}
	list := make([]string, patches)
	for i := range list {
		list[i] = fmt.Sprintf(`{"target":{"kind":"ConfigMap"},"patch":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"any\"},\"data\":{\"p%d\":\"v\"}}"}`, i)
	}
	return []byte(`{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","resources":["` + kustomizeObjectsFile + `"],"patches":[` +
		strings.Join(list, ",") + `]}`), []byte(b.String())
}

func newWorkers(t *testing.T) (*Workers, *[]int) {
	t.Helper()
	var mu sync.Mutex
	var pids []int
	workerStartedHook = func(pid int) {
		mu.Lock()
		pids = append(pids, pid)
		mu.Unlock()
	}
	t.Cleanup(func() { workerStartedHook = nil })
	workers, err := NewWorkers()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(workers.Close)
	return workers, &pids
}

// gone reports whether process pid has ended and been reaped.
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// TestWorkersBuildAsInProcess: a build in a worker gives the objects the same build gives in
// the request's goroutine, its errors too, and the worker serves the next build.
func TestWorkersBuildAsInProcess(t *testing.T) {
	workers, pids := newWorkers(t)
	kustomization, docs := slowKustomization(20, 3)
	want, err := buildInProcess(kustomization, docs, false)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := workers.Build(context.Background(), kustomization, docs, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the worker built %v, the process %v", got, want)
		}
	}
	broken := []byte(`{"apiVersion":"kustomize.config.k8s.io/v1beta1","kind":"Kustomization","resources":["` + kustomizeObjectsFile + `"],"patches":[{"patch":"- op: nonsense"}]}`)
	_, wantErr := buildInProcess(broken, docs, false)
	if _, err := workers.Build(context.Background(), broken, docs, false); err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Fatalf("the worker's error %v, the process's %v", err, wantErr)
	}
	if len(*pids) != 1 {
		t.Errorf("%d workers started for three builds one after another, want 1", len(*pids))
	}
	// A worker killed while idle is replaced.
	_ = syscall.Kill((*pids)[0], syscall.SIGKILL)
	for !gone((*pids)[0]) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := workers.Build(context.Background(), kustomization, docs, false); err != nil {
		t.Fatalf("after the idle worker was killed: %v", err)
	}
}

// TestWorkersStopWithTheirRequest is issue 37's finding 7 at its source: a build whose request
// ends is stopped then, its worker killed (no core is held for a request nobody waits for),
// and the next build gets a new worker; through the Kustomization transformer too.
func TestWorkersStopWithTheirRequest(t *testing.T) {
	workers, pids := newWorkers(t)
	slow, docs := slowKustomization(1000, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := workers.Build(ctx, slow, docs, false)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the request's end, got %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("the build stopped %v after its request started, 300 ms before its deadline", took)
	}
	if len(*pids) != 1 || !gone((*pids)[0]) {
		t.Fatalf("the worker of a build whose request ended still runs: %v", *pids)
	}
	small, smallDocs := slowKustomization(3, 1)
	if _, err := workers.Build(context.Background(), small, smallDocs, false); err != nil || len(*pids) != 2 {
		t.Fatalf("the next build: %v, %d workers started", err, len(*pids))
	}

	// The transformer, given the workers through its build slots: 1,000 objects and four
	// patches over all of them, within its limits, a build of a few seconds.
	tr, errs := transformtest.NewTransformer(t, testKinds, kustomization(4, func(int) string { return "{kind: ConfigMap}" }))
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	request, cancelRequest := context.WithCancel(context.Background())
	tctx := transform.NewContext(request, 0).SetBuildSlots(transform.NewBuildSlots(1).SetBuilder(workers))
	time.AfterFunc(200*time.Millisecond, cancelRequest)
	if _, err := tr.Transform(tctx, transformtest.ConfigMaps(1000, 10)); !errors.Is(err, context.Canceled) {
		t.Fatalf("the transformer's build whose request ended: want its end, got %v", err)
	}
	// It took the idle worker of the build before, and killed it.
	if n := len(*pids); n != 2 || !gone((*pids)[1]) {
		t.Fatalf("the transformer's worker still runs after its request ended: %v", *pids)
	}
}
