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
	"stencil.dev/stencil/pkg/transform"
	"stencil.dev/stencil/pkg/transform/transformtest"
	"strings"
	"testing"
	"time"
)

// kustomization returns an inline Kustomization with n patches, each adding one key to the
// ConfigMaps its target (YAML) selects.
func kustomization(n int, target func(i int) string) string {
	patches := make([]string, n)
	for i := range patches {
		patches[i] = fmt.Sprintf(`{patch: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"any"},"data":{"k%d":"v"}}', target: %s}`, i, target(i))
	}
	return "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, metadata: {name: kz}, patches: [" + strings.Join(patches, ", ") + "]}"
}

// sharedSlots are the process's build slots, which a Context without its own takes.
var sharedSlots = (&transform.Context{}).BuildSlots()

// holdSlots takes n build slots, as builds in progress would, until the test ends.
func holdSlots(t *testing.T, n int) {
	t.Helper()
	for range n {
		_ = sharedSlots.Acquire(&transform.Context{})
	}
	t.Cleanup(func() {
		for range n {
			sharedSlots.Release()
		}
	})
}

// safeContext bounds a test that would otherwise wait forever on a regression; reaching its
// deadline fails the test, it is never what the test measures.
func safeContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestKustomizationCostIsRefusedUpFront is issue 17's second finding: 1,000 objects and 80
// patches over all of them made every other Kustomization wait two minutes. Such a build is
// refused before it starts, without waiting for a slot: here every slot is taken.
func TestKustomizationCostIsRefusedUpFront(t *testing.T) {
	everyConfigMap := func(int) string { return "{kind: ConfigMap}" }
	oneByName := func(i int) string { return fmt.Sprintf("{kind: ConfigMap, name: c%d}", i) }
	cases := []struct {
		name, config string
		objects      []transform.Object
		maxBytes     int
		wantErr      string // "" when the build may run
	}{
		{"80 patches over 1,000 objects", kustomization(80, everyConfigMap), transformtest.ConfigMaps(1000, 10), 0, "at most 5000"},
		{"80 patches of one object each", kustomization(80, oneByName), transformtest.ConfigMaps(1000, 10), 0, ""},
		{"4 patches over 1,000 objects", kustomization(4, everyConfigMap), transformtest.ConfigMaps(1000, 10), 0, ""},
		{"replacements over every object", `{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization,
			replacements: [{source: {kind: ConfigMap, name: c0, fieldPath: data.a}, targets: [{select: {kind: ConfigMap}, fieldPaths: [data.a, data.b, data.c, data.d, data.e]}]}]}`,
			transformtest.ConfigMaps(1000, 10), 0, "at most 5000"},
		// Eleven copies double 200 ConfigMaps eleven times: refused before krusty makes them.
		{"JSON 6902 copies", `{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, patches: [{target: {kind: ConfigMap}, patch: '[` +
			strings.TrimSuffix(strings.Repeat(`{"op":"copy","from":"/data","path":"/data/x"},`, 11), ",") + `]'}]}`,
			transformtest.ConfigMaps(200, 50), 1 << 20, "output too large"},
	}
	holdSlots(t, sharedSlots.Cap())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, errs := transformtest.NewTransformer(t, testKinds, tc.config)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			kt := tr.(*kustomizationTransformer)
			ctx := transform.NewContext(safeContext(t), tc.maxBytes)
			if tc.wantErr == "" {
				// The build would wait for a slot: the estimate alone is checked.
				sizes := make([]int, len(tc.objects))
				if err := kt.checkKustomizeCost(ctx, tc.objects, sizes); err != nil {
					t.Fatalf("a build within the limits was refused: %v", err)
				}
				return
			}
			_, err := tr.Transform(ctx, tc.objects)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want an error containing %q before any wait, got %v", tc.wantErr, err)
			}
		})
	}
}

// TestKustomizationBuildsDoNotWaitForEachOther: with builds running in all slots but one, a
// small build goes ahead (it waited behind the one server-wide lock before); with every slot
// taken, a request that has ended stops waiting and gives its slot back to no one.
func TestKustomizationBuildsDoNotWaitForEachOther(t *testing.T) {
	tr, errs := transformtest.NewTransformer(t, testKinds, "{apiVersion: kustomize.config.k8s.io/v1beta1, kind: Kustomization, namePrefix: p-}")
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	if sharedSlots.Cap() < 2 {
		t.Fatalf("%d build slot: builds are serialised", sharedSlots.Cap())
	}
	holdSlots(t, sharedSlots.Cap()-1)
	out, err := tr.Transform(transform.NewContext(safeContext(t), 0), transformtest.ConfigMaps(1, 1))
	if err != nil {
		t.Fatalf("a small build beside running ones: %v", err)
	}
	if transform.NameOf(out[0]) != "p-c0" {
		t.Fatalf("unexpected output %v", out)
	}

	holdSlots(t, 1)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Transform(transform.NewContext(ended, 0), transformtest.ConfigMaps(1, 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("a request that ended while waiting: want its end, got %v", err)
	}
	if sharedSlots.InUse() != sharedSlots.Cap() {
		t.Fatalf("%d of %d slots taken: a request that gave up kept or freed one", sharedSlots.InUse(), sharedSlots.Cap())
	}
}
