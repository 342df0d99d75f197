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
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
	"testing"
	"time"
)

// TestBuildSlotsOfAContext: a Context's own BuildSlots, not the process's, decide whether a
// build waits. With its one slot taken, a build waits until its request ends although the
// shared slots are free; with the slot given back, it runs.
func TestBuildSlotsOfAContext(t *testing.T) {
	tr, errs := transformtest.NewTransformer(t, testKinds, "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namePrefix: p-}")
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	slots := transform.NewBuildSlots(1)
	_ = slots.Acquire(&transform.Context{})
	request, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := tr.Transform(transform.NewContext(request, 0).SetBuildSlots(slots), transformtest.ConfigMaps(1, 1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with its one slot taken: want the request's end, got %v", err)
	}
	slots.Release()
	out, err := tr.Transform(transform.NewContext(safeContext(t), 0).SetBuildSlots(slots), transformtest.ConfigMaps(1, 1))
	if err != nil || transform.NameOf(out[0]) != "p-c0" {
		t.Fatalf("with its slot free: %v %v", out, err)
	}
	if slots.InUse() != 0 {
		t.Fatalf("the build kept its slot")
	}
}
