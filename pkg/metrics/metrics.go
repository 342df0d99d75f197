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

// Package metrics defines Stencil's own Prometheus series and records them through
// k8s.io/component-base/metrics into the legacy registry, which the generic server serves on
// /metrics beside its apiserver_* series. The processing libraries (pkg/render,
// pkg/transform) only call hooks; this package is what turns the hooks into series.
package metrics

import (
	"errors"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"stencil.dev/stencil/pkg/version"
)

const namespace = "stencil"

// Endpoint labels: one per processing endpoint.
const (
	// EndpointProcessed is POST templates/{name}/processed.
	EndpointProcessed = "templates/processed"
	// EndpointProcessedTemplates is POST processedtemplates.
	EndpointProcessedTemplates = "processedtemplates"
)

var (
	requests = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Subsystem: "processing", Name: "requests_total",
		Help:           "Processing requests by endpoint and HTTP status code of the answer.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"endpoint", "code"})
	errorsByReason = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Subsystem: "processing", Name: "errors_total",
		Help:           "Processing requests that failed, by endpoint and Status reason (Invalid, Timeout, InternalError, ...).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"endpoint", "reason"})
	duration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Subsystem: "processing", Name: "duration_seconds",
		Help:           "Time spent processing one request, from the template in hand to the List, by endpoint.",
		Buckets:        []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		StabilityLevel: metrics.ALPHA,
	}, []string{"endpoint"})
	inputBytes = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Subsystem: "processing", Name: "input_bytes",
		Help:           "Size of the processed template's objects and transformer configs, by endpoint.",
		Buckets:        metrics.ExponentialBuckets(256, 4, 10),
		StabilityLevel: metrics.ALPHA,
	}, []string{"endpoint"})
	outputObjects = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Subsystem: "processing", Name: "output_objects",
		Help:           "Objects in the List of a successful request, by endpoint.",
		Buckets:        metrics.ExponentialBuckets(1, 2, 13),
		StabilityLevel: metrics.ALPHA,
	}, []string{"endpoint"})
	outputBytes = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Subsystem: "processing", Name: "output_bytes",
		Help:           "Size of the objects of a successful request's List, by endpoint.",
		Buckets:        metrics.ExponentialBuckets(256, 4, 10),
		StabilityLevel: metrics.ALPHA,
	}, []string{"endpoint"})
	cacheLookups = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: namespace, Subsystem: "render", Name: "cache_lookups_total",
		Help:           "Lookups in the renderer's caches (plan: compiled stored templates; pipeline: compiled transformer lists), by result hit or miss.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"cache", "result"})
	cacheEntries = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace, Subsystem: "render", Name: "cache_entries",
		Help:           "Entries in the renderer's caches.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"cache"})
	cacheBytes = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace, Subsystem: "render", Name: "cache_bytes",
		Help:           "Estimated bytes held by the renderer's caches, each bounded by its flag (--plan-cache-bytes, --pipeline-cache-bytes).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"cache"})
	transformerDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace, Subsystem: "transformer", Name: "duration_seconds",
		Help:           "Time one transformer took over a request's objects, by transformer kind.",
		Buckets:        []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10},
		StabilityLevel: metrics.ALPHA,
	}, []string{"kind"})
	memoryHeld = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace, Subsystem: "processing", Name: "memory_held_bytes",
		Help:           "Processing memory held by the requests in flight, from their start until their answer is written, by share (all; plugins: requests that may run plugins).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"share"})
	memoryCapacity = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace, Subsystem: "processing", Name: "memory_capacity_bytes",
		Help:           "Processing memory the requests in flight may hold together, by share (all: --processing-memory-bytes; plugins: half of it).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"share"})
	certificateExpiry = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace: namespace, Subsystem: "serving_certificate", Name: "expiration_timestamp_seconds",
		Help:           "When the certificate from --self-signed-cert-secret that this replica serves expires, in Unix seconds.",
		StabilityLevel: metrics.ALPHA,
	})
	buildInfo = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace, Name: "build_info",
		Help:           "Always 1; the labels say which build of stencil-apiserver runs.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"git_version", "git_commit", "go_version"})

	registerOnce sync.Once
)

// Recorder records Stencil's series. Its methods fit the hooks of pkg/render
// (render.CacheObserver), pkg/transform (transform.StepObserver), pkg/servingcert
// (servingcert.Observer) and the processing endpoints.
type Recorder struct{}

// NewRecorder registers Stencil's series in the legacy registry, once per process, and returns
// a Recorder.
func NewRecorder() *Recorder {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(requests, errorsByReason, duration, inputBytes, outputObjects, outputBytes,
			cacheLookups, cacheEntries, cacheBytes, transformerDuration, memoryHeld, memoryCapacity, certificateExpiry, buildInfo)
		v := version.Get()
		buildInfo.WithLabelValues(v.GitVersion, v.GitCommit, v.GoVersion).Set(1)
	})
	return &Recorder{}
}

// MemoryCapacity records the processing memory's capacity, and its plugins' share.
func (*Recorder) MemoryCapacity(all, plugins int64) {
	memoryCapacity.WithLabelValues("all").Set(float64(all))
	memoryCapacity.WithLabelValues("plugins").Set(float64(plugins))
}

// MemoryHeld records the processing memory held now, by all requests and by those that may
// run plugins. Requests call it several times each, so its series are looked up once.
func (*Recorder) MemoryHeld(all, plugins int64) {
	held := heldSeries()
	held.all.Set(float64(all))
	held.plugins.Set(float64(plugins))
}

// Processed records one processing request: how long it took, how big its template was and,
// when it succeeded, what it produced; err is the error the endpoint answers, nil for 201.
func (*Recorder) Processed(endpoint string, took time.Duration, templateBytes, objects, objectBytes int, err error) {
	series := seriesOf(endpoint)
	if err != nil {
		code := 500
		reason := "InternalError"
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			code = int(status.Status().Code)
			if r := string(status.Status().Reason); r != "" {
				reason = r
			}
		}
		errorsByReason.WithLabelValues(endpoint, reason).Inc()
		requests.WithLabelValues(endpoint, strconv.Itoa(code)).Inc()
	} else {
		series.created.Inc()
	}
	series.duration.Observe(took.Seconds())
	series.input.Observe(float64(templateBytes))
	if err == nil {
		series.objects.Observe(float64(objects))
		series.bytes.Observe(float64(objectBytes))
	}
}

// CacheLookup records a lookup in one of the renderer's caches.
func (*Recorder) CacheLookup(cache string, hit bool) {
	result := "miss"
	if hit {
		result = "hit"
	}
	cacheLookups.WithLabelValues(cache, result).Inc()
}

// CacheEntries records the size of one of the renderer's caches.
func (*Recorder) CacheEntries(cache string, entries int, bytes int64) {
	cacheEntries.WithLabelValues(cache).Set(float64(entries))
	cacheBytes.WithLabelValues(cache).Set(float64(bytes))
}

// Transformer records the run of one transformer.
func (*Recorder) Transformer(kind string, took time.Duration) {
	transformerDuration.WithLabelValues(kind).Observe(took.Seconds())
}

// CertificateExpires records the end of the serving certificate.
func (*Recorder) CertificateExpires(notAfter time.Time) {
	certificateExpiry.Set(float64(notAfter.Unix()))
}
