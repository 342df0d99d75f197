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

package metrics

import (
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
)

// TestSeriesLookedUpOnce checks that the series looked up once (series.go) record what a
// lookup on every request recorded: each request counted under its endpoint and code, its
// histograms observed, and the memory gauges set to the last values.
func TestSeriesLookedUpOnce(t *testing.T) {
	r := NewRecorder()
	for range 3 {
		r.Processed("test/ok", 2*time.Millisecond, 1000, 4, 800, nil)
	}
	r.Processed("test/ok", time.Millisecond, 10, 0, 0, apierrors.NewBadRequest("no"))
	r.Processed("test/other", time.Millisecond, 10, 1, 20, nil)
	r.Processed("test/other", time.Millisecond, 10, 0, 0,
		apierrors.NewInvalid(schema.GroupKind{Group: "templates.stencil.dev", Kind: "Template"}, "t", nil))
	r.MemoryHeld(5, 3)
	r.MemoryHeld(7, 2)

	want := `
# HELP stencil_processing_memory_held_bytes [ALPHA] Processing memory held by the requests in flight, from their start until their answer is written, by share (all; plugins: requests that may run plugins).
# TYPE stencil_processing_memory_held_bytes gauge
stencil_processing_memory_held_bytes{share="all"} 7
stencil_processing_memory_held_bytes{share="plugins"} 2
# HELP stencil_processing_requests_total [ALPHA] Processing requests by endpoint and HTTP status code of the answer.
# TYPE stencil_processing_requests_total counter
stencil_processing_requests_total{code="201",endpoint="test/ok"} 3
stencil_processing_requests_total{code="400",endpoint="test/ok"} 1
stencil_processing_requests_total{code="201",endpoint="test/other"} 1
stencil_processing_requests_total{code="422",endpoint="test/other"} 1
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want),
		"stencil_processing_memory_held_bytes", "stencil_processing_requests_total"); err != nil {
		t.Fatal(err)
	}
	for endpoint, want := range map[string]uint64{"test/ok": 4, "test/other": 2} {
		for name, h := range map[string]interface {
			WithLabelValues(...string) metrics.ObserverMetric
		}{"duration_seconds": duration, "input_bytes": inputBytes} {
			count, err := testutil.GetHistogramMetricCount(h.WithLabelValues(endpoint))
			if err != nil {
				t.Fatal(err)
			}
			if count != want {
				t.Errorf("%s{endpoint=%q}: %d observations, want %d", name, endpoint, count, want)
			}
		}
	}
	for endpoint, want := range map[string]uint64{"test/ok": 3, "test/other": 1} {
		count, err := testutil.GetHistogramMetricCount(outputObjects.WithLabelValues(endpoint))
		if err != nil {
			t.Fatal(err)
		}
		if count != want {
			t.Errorf("output_objects{endpoint=%q}: %d observations, want %d (successes only)", endpoint, count, want)
		}
	}
}
