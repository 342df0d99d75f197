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
	"sync"

	"k8s.io/component-base/metrics"
)

// The series every processing request records, looked up by their label values once instead
// of on every request. A lookup by label values checks each value is UTF-8, hashes them and
// searches the vector's map under its lock: a successful request recorded six series and
// about ten memory gauges that way, a fifth of what the server adds to processing a small
// template. They are looked up on first use, when the series are registered (NewRecorder
// comes first) and the server's flags have hidden or disabled what they hide: a series that
// is not created answers a no-op, as it would to every lookup.

// memorySeries are memory_held_bytes' two series.
type memorySeries struct {
	all, plugins metrics.GaugeMetric
}

var heldSeries = sync.OnceValue(func() memorySeries {
	return memorySeries{all: memoryHeld.WithLabelValues("all"), plugins: memoryHeld.WithLabelValues("plugins")}
})

// endpointSeries are the series of one processing endpoint a request records: requests_total
// with code 201, and the histograms.
type endpointSeries struct {
	created                         metrics.CounterMetric
	duration, input, objects, bytes metrics.ObserverMetric
}

// endpoints holds the endpointSeries of each endpoint (a few: the processing endpoints).
var endpoints sync.Map

func seriesOf(endpoint string) *endpointSeries {
	if s, ok := endpoints.Load(endpoint); ok {
		return s.(*endpointSeries)
	}
	s, _ := endpoints.LoadOrStore(endpoint, &endpointSeries{
		created:  requests.WithLabelValues(endpoint, "201"),
		duration: duration.WithLabelValues(endpoint),
		input:    inputBytes.WithLabelValues(endpoint),
		objects:  outputObjects.WithLabelValues(endpoint),
		bytes:    outputBytes.WithLabelValues(endpoint),
	})
	return s.(*endpointSeries)
}
