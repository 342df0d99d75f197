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

package integration

import (
	"context"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	templatesv1 "stencil.dev/stencil/pkg/apis/templates/v1alpha1"
	stencilclient "stencil.dev/stencil/pkg/client"
)

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape reads the server's /metrics.
func scrape(t *testing.T, s *localServer) []sample {
	t.Helper()
	body, err := s.client(t).Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("not a sample: %q", line)
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("not a sample: %q", line)
		}
		name, labels, _ := strings.Cut(series, "{")
		smp := sample{name: name, labels: map[string]string{}, value: v}
		for _, pair := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
			if k, v, ok := strings.Cut(pair, "="); ok {
				smp.labels[k] = strings.Trim(v, `"`)
			}
		}
		out = append(out, smp)
	}
	return out
}

// value is the sample of name whose labels include labels; absent counts as 0.
func value(samples []sample, name string, labels map[string]string) float64 {
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range labels {
			if s.labels[k] != v {
				match = false
			}
		}
		if match {
			return s.value
		}
	}
	return 0
}

func labelsOf(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// TestMetrics processes templates on a server of its own and reads every Stencil series off
// /metrics: the counts must be exactly the requests made.
func TestMetrics(t *testing.T) {
	s := startTestServer(t, filepath.Join(t.TempDir(), "server"))
	ctx := context.Background()
	const ns = "metrics"
	templates := s.client(t).TemplatesV1alpha1().Templates(ns)
	stored := &templatesv1.Template{
		ObjectMeta: metav1.ObjectMeta{Name: "labelled"},
		Parameters: []templatesv1.Parameter{{Name: "NAME", Value: "app"}},
		Objects: []runtime.RawExtension{
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}-a"}}`)},
			{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${NAME}-b"}}`)},
		},
		Transformers: []runtime.RawExtension{{Raw: []byte(`{"kind":"LabelTransformer","labels":{"tier":"web"}}`)}},
	}
	if _, err := templates.Create(ctx, stored, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := scrape(t, s)
	for range 2 { // the second request finds the plan and the pipeline cached
		if _, err := templates.Process(ctx, stored.Name, &templatesv1.TemplateParameters{}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rest := s.client(t).TemplatesV1alpha1().RESTClient()
	inline := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"inline"},
		"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one"}}]}`
	if _, err := stencilclient.ProcessTemplate(ctx, rest, ns, []byte(inline), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	invalid := `{"apiVersion":"templates.stencil.dev/v1alpha1","kind":"Template","metadata":{"name":"invalid"},
		"parameters":[{"name":"1BAD"}],"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}]}`
	if _, err := stencilclient.ProcessTemplate(ctx, rest, ns, []byte(invalid), metav1.CreateOptions{}); err == nil {
		t.Fatal("an invalid template was processed")
	}
	after := scrape(t, s)

	processed, inlineEP := labelsOf("endpoint", "templates/processed"), labelsOf("endpoint", "processedtemplates")
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"stencil_processing_requests_total", labelsOf("endpoint", "templates/processed", "code", "201"), 2},
		{"stencil_processing_requests_total", labelsOf("endpoint", "processedtemplates", "code", "201"), 1},
		{"stencil_processing_requests_total", labelsOf("endpoint", "processedtemplates", "code", "422"), 1},
		{"stencil_processing_errors_total", labelsOf("endpoint", "processedtemplates", "reason", "Invalid"), 1},
		{"stencil_processing_duration_seconds_count", processed, 2},
		{"stencil_processing_duration_seconds_count", inlineEP, 2},
		{"stencil_processing_input_bytes_count", processed, 2},
		{"stencil_processing_output_objects_sum", processed, 4},
		{"stencil_processing_output_objects_sum", inlineEP, 1},
		{"stencil_processing_output_objects_count", inlineEP, 1},
		{"stencil_render_cache_lookups_total", labelsOf("cache", "plan", "result", "miss"), 1},
		{"stencil_render_cache_lookups_total", labelsOf("cache", "plan", "result", "hit"), 1},
		{"stencil_render_cache_lookups_total", labelsOf("cache", "pipeline", "result", "miss"), 1},
		{"stencil_render_cache_lookups_total", labelsOf("cache", "pipeline", "result", "hit"), 1},
		{"stencil_transformer_duration_seconds_count", labelsOf("kind", "LabelTransformer"), 2},
	} {
		if got := value(after, c.name, c.labels) - value(before, c.name, c.labels); got != c.want {
			t.Errorf("%s%v moved by %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
	}{
		{"stencil_processing_input_bytes_sum", processed},
		{"stencil_processing_output_bytes_sum", processed},
		{"stencil_processing_duration_seconds_sum", processed},
		{"stencil_transformer_duration_seconds_sum", labelsOf("kind", "LabelTransformer")},
	} {
		if value(after, c.name, c.labels) <= value(before, c.name, c.labels) {
			t.Errorf("%s%v did not grow", c.name, c.labels)
		}
	}
	for _, cache := range []string{"plan", "pipeline"} {
		if got := value(after, "stencil_render_cache_entries", labelsOf("cache", cache)); got != 1 {
			t.Errorf("%s cache: %v entries, want 1", cache, got)
		}
		if got := value(after, "stencil_render_cache_bytes", labelsOf("cache", cache)); got <= 0 || got > 1<<20 {
			t.Errorf("%s cache: %v bytes, want the size of one small entry", cache, got)
		}
	}
	info := labelsOf()
	for _, smp := range after {
		if smp.name == "stencil_build_info" {
			info = maps.Clone(smp.labels)
		}
	}
	if info["git_version"] == "" || info["go_version"] == "" {
		t.Errorf("stencil_build_info labels %v", info)
	}
}
